/// What a publish token (`item.publish`'s link, `item.unpublish`'s `token`) looks like: 32
/// characters of base64url (RFC 4648 §5, no padding), 24 random bytes. The daemon makes them in
/// this form and answers any other link with 404 before looking one up; `ubiq publish --revoke`
/// refuses anything else as a usage error before asking. Pure.
public enum PublishTokenFormat {
    /// A token's length.
    public static let characters = 32
    /// Its characters, in the order of their 6-bit values.
    public static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func isWellFormed(_ token: some StringProtocol) -> Bool {
        token.utf8.count == characters && token.utf8.allSatisfy { alphabet.contains($0) }
    }
}
