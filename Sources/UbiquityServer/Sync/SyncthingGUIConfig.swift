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
        let bytes = Array(xml.utf8)[...]
        let open = Array("<gui".utf8), close = Array("</gui>".utf8)
        guard let start = Self.find(open, in: bytes), let end = Self.find(close, in: bytes[(start + open.count)...]) else {
            self.init(address: nil, apiKey: nil)
            return
        }
        let gui = bytes[(start + open.count)..<end]
        self.init(address: Self.element("address", in: gui), apiKey: Self.element("apikey", in: gui))
    }

    /// The text of `<name>…</name>` in `text`, entities decoded; nil when absent or empty.
    static func element(_ name: String, in text: ArraySlice<UInt8>) -> String? {
        let open = Array("<\(name)>".utf8), close = Array("</\(name)>".utf8)
        guard let start = find(open, in: text), let end = find(close, in: text[(start + open.count)...]) else { return nil }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0a || $0 == 0x09 || $0 == 0x0d }
        var value = text[(start + open.count)..<end]
        while let first = value.first, isSpace(first) { value = value.dropFirst() }
        while let last = value.last, isSpace(last) { value = value.dropLast() }
        return value.isEmpty ? nil : decodeEntities(value)
    }

    /// Where `needle` first starts in `haystack` (an index of `haystack`'s base), or nil.
    /// (Bytes, not `String.firstRange(of:)`: that is `_StringProcessing`'s, whose regex engine
    /// would come into the package with it.)
    static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index <= haystack.endIndex - needle.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// XML's five predefined entities, decoded in one pass (`&amp;lt;` is `&lt;`); anything else
    /// is kept as written.
    static func decodeEntities(_ text: ArraySlice<UInt8>) -> String {
        let entities: [(name: [UInt8], byte: UInt8)] = [
            (Array("&lt;".utf8), UInt8(ascii: "<")), (Array("&gt;".utf8), UInt8(ascii: ">")), (Array("&quot;".utf8), UInt8(ascii: "\"")),
            (Array("&apos;".utf8), UInt8(ascii: "'")), (Array("&amp;".utf8), UInt8(ascii: "&")),
        ]
        var decoded: [UInt8] = []
        decoded.reserveCapacity(text.count)
        var rest = text
        while let first = rest.first {
            if first == UInt8(ascii: "&"), let entity = entities.first(where: { rest.starts(with: $0.name) }) {
                decoded.append(entity.byte)
                rest = rest.dropFirst(entity.name.count)
            } else {
                decoded.append(first)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
