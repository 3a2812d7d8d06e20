/// The REST address and API key in Syncthing's `config.xml` (`<gui><address>…</address>
/// <apikey>…</apikey></gui>`). Read by scanning for those elements, not by a general XML parser:
/// the file is Syncthing's own and those two elements hold plain text. Pure.
public struct SyncthingGUIConfig: Sendable, Hashable {
    /// As written: a path (a Unix socket) or `host:port`.
    public var address: String?
    public var apiKey: String?

    /// The largest `config.xml` read (Syncthing's own are a few KiB; one with thousands of
    /// folders and devices stays far below).
    public static let maxBytes = 4 << 20

    public init(address: String?, apiKey: String?) {
        self.address = address
        self.apiKey = apiKey
    }

    /// The `<gui>` element's address and key; nil fields for what is not there.
    public init(xml: String) {
        guard let open = xml.range(of: "<gui"), let close = xml.range(of: "</gui>", range: open.upperBound..<xml.endIndex) else {
            self.init(address: nil, apiKey: nil)
            return
        }
        let gui = xml[open.upperBound..<close.lowerBound]
        self.init(address: Self.element("address", in: gui), apiKey: Self.element("apikey", in: gui))
    }

    /// The text of `<name>…</name>` in `text`, entities decoded; nil when absent or empty.
    static func element(_ name: String, in text: Substring) -> String? {
        guard let start = text.range(of: "<\(name)>"), let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex) else {
            return nil
        }
        let value = text[start.upperBound..<end.lowerBound].trimmingSpaces
        return value.isEmpty ? nil : decodeEntities(value)
    }

    /// XML's five predefined entities; anything else is kept as written.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"")
            .replacing("&apos;", with: "'").replacing("&amp;", with: "&")
    }
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
