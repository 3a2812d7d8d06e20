enum UbiqVersion {
    static let string = "0.1.0"
}
