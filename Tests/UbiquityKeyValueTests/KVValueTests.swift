import Testing
import UbiquityKeyValue
import UbiquityJSON

@Suite("Key-value values: every type's wire form, and clear errors for the rest")
struct KVValueTests {
    static let roundTrips: [String] = [
        #""text""#, #""""#, #""ünïcødé ✓ 🛒""#, "42", "-9223372036854775808", "9223372036854775807", "3.25", "-0.5",
        "true", "false", #"{"$data":"AAEC/w=="}"#, #"{"$data":""}"#, #"{"$date":"2026-05-01T12:00:00.123Z"}"#,
        #"{"$date":"1969-12-31T23:59:59.999Z"}"#, #"{"$date":"0001-01-01T00:00:00.000Z"}"#, #"{"$date":"9999-12-31T23:59:59.999Z"}"#,
        #"[1,"two",[3.5],{"four":false}]"#, #"{"a":{"b":[{"$date":"2000-02-29T00:00:00.000Z"}]},"c":{"$data":"aGk="}}"#, "[]", "{}",
    ]

    @Test("Round-trips through the wire form", arguments: roundTrips)
    func roundTrip(_ text: String) throws {
        let wire = try JSONLine.parse(Array(text.utf8))
        let value = try KVValue(wire: wire)
        #expect(value.wire == wire)
        #expect(try KVValue(wire: value.wire) == value)
    }

    @Test("Dates in shorter forms read back in the canonical one")
    func dateForms() throws {
        let value = try KVValue(wire: .object(["$date": .string("2026-05-01T12:00:00Z")]))
        #expect(value == .date(1_777_636_800_000))
        #expect(value.wire == .object(["$date": .string("2026-05-01T12:00:00.000Z")]))
        #expect(try KVValue(wire: .object(["$date": .string("2026-05-01T12:00:00.5Z")])) == .date(1_777_636_800_500))
    }

    static let refused: [(String, String)] = [
        ("null", "remove the key instead"),
        (#"{"$data":"not base64!"}"#, "not base64"),
        (#"{"$data":5}"#, "must be a string"),
        (#"{"$date":"2026-02-30T00:00:00Z"}"#, "is not a date"),
        (#"{"$date":"2026-05-01T12:00:00.1234Z"}"#, "is not a date"),
        (#"{"$date":"2026-05-01 12:00:00Z"}"#, "is not a date"),
        (#"{"$date":"2026-05-01T12:00:00+01:00"}"#, "is not a date"),
        (#"{"$other":1}"#, "may not begin with '$'"),
        (#"{"ok":1,"$data":"AA=="}"#, "may not begin with '$'"),
        (#"[1,[null]]"#, "value[1][0] is null"),
    ]

    @Test("Bad values get an error naming what is wrong", arguments: refused)
    func refusedValues(_ text: String, _ phrase: String) throws {
        let wire = try JSONLine.parse(Array(text.utf8))
        do {
            _ = try KVValue(wire: wire)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.message.contains(phrase), "\(error.message)")
        }
    }

    @Test("Nesting deeper than the limit is refused, at the limit accepted")
    func depth() throws {
        var wire = JSONValue.integer(1)
        for _ in 0..<KVValue.maxDepth { wire = .array([wire]) }
        _ = try KVValue(wire: wire)
        #expect(throws: KeyValueError.self) { try KVValue(wire: .array([wire])) }
    }
}
