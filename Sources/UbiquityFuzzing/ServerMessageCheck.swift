import UbiquityJSON
import UbiquityProtocol

/// A line from the daemon — or from whatever listens on its socket path — as UbiquityKit, `ubiq`
/// and `grocery` read it.
///
/// Two readers must agree: the one-pass reader the clients use (``ServerMessage/init(line:)``,
/// result items read straight into place) and the general one (the line's JSON, then
/// ``ServerMessage/init(json:)``). For any line both give the same message, or both refuse it —
/// for an event the client does not know, the same name. Neither may trap.
public enum ServerMessageCheck: FuzzCheck {
    public static let name = "server-message"

    static func general(_ bytes: [UInt8]) -> ServerMessage? {
        guard let json = try? JSONLine.decode(bytes) else { return nil }
        return try? ServerMessage(json: json)
    }

    static func onePass(_ bytes: [UInt8]) -> ServerMessage? {
        bytes.withUnsafeBufferPointer { line in try? ServerMessage(line: line) }
    }

    public static func accepts(_ bytes: [UInt8]) -> Bool { onePass(bytes) != nil }

    public static func check(_ bytes: [UInt8]) -> String? {
        let fast = onePass(bytes), slow = general(bytes)
        switch (fast, slow) {
        case (nil, nil): return nil
        case (.unknownEvent(let fastName, _)?, .unknownEvent(let slowName, _)?):
            // An event this client does not know is ignored; the one-pass reader's copy of it holds
            // any result items as it read them (fields it does not know left out), so only the
            // name must agree.
            return fastName == slowName ? nil : "an unknown event read as '\(fastName)' and as '\(slowName)'"
        case (let fast?, let slow?): return fast == slow ? nil : "the one-pass reader reads \(fast), the general one \(slow)"
        case (nil, .some): return "the one-pass reader refuses a line the general reader reads"
        case (.some, nil): return "the one-pass reader reads a line the general reader refuses"
        }
    }
}
