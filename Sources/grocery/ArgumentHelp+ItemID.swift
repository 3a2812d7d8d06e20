import ArgumentParser

extension ArgumentHelp {
    /// The `id` argument of the commands that act on one item.
    static var itemID: ArgumentHelp { ArgumentHelp("The item's id or a prefix of it.", valueName: "id") }
}
