public import UbiquityJSON

extension JSONLine {
    /// Decodes one line of a request or answer (without its `\n`; a trailing `\r` is tolerated).
    ///
    /// - Throws: `request.malformed` naming the first invalid UTF-8 byte, or what the JSON
    ///   parser found wrong.
    public static func decode<Bytes: Collection>(_ bytes: Bytes) throws(ProtocolError) -> JSONValue where Bytes.Element == UInt8 {
        do { return try parse(bytes) } catch { throw .malformed(error.message) }
    }
}
