import Foundation
import Testing
import UbiquityTesting
@testable import UbiquityTOML

// Our parser against the reference: Python's tomllib (python3 ≥ 3.11), one python3 process for a
// whole batch of documents. The contract checked, document by document:
//   - inside the subset: both accept, and the values are the same (types, integers exactly,
//     floats to the bit, strings after escapes, arrays, tables);
//   - just outside it: we refuse with a "not supported" message at the right line and column,
//     while tomllib accepts (so it is valid TOML the subset leaves out on purpose);
//   - anything else (random one-character mutations): both refuse, or both accept the same
//     values, or we refuse with one of the documented narrowings (isDocumentedNarrowing).

@Suite("TOML subset against Python's tomllib", .ownThreads)
struct TOMLDifferentialTests {
    /// What tomllib made of one document: its value, or its error message.
    struct ReferenceResult: Decodable {
        var ok: TaggedTOMLValue?
        var error: String?
    }

    static let referenceProgram = """
        import json, struct, sys, tomllib
        def tag(v):
            if isinstance(v, bool): return {"b": v}
            if isinstance(v, int): return {"i": str(v)}
            if isinstance(v, float): return {"f": str(struct.unpack("<q", struct.pack("<d", v))[0])}
            if isinstance(v, str): return {"s": v}
            if isinstance(v, list): return {"a": [tag(x) for x in v]}
            if isinstance(v, dict): return {"t": {k: tag(x) for k, x in v.items()}}
            return {"other": type(v).__name__}
        out = []
        for document in json.loads(sys.stdin.buffer.read().decode("utf-8")):
            try:
                out.append({"ok": tag(tomllib.loads(document))})
            except tomllib.TOMLDecodeError as e:
                out.append({"error": str(e)})
        sys.stdout.buffer.write(json.dumps(out, ensure_ascii=False).encode("utf-8"))
        """

    /// Every document through tomllib, in one python3 process.
    static func reference(_ documents: [String]) throws -> [ReferenceResult] {
        let result = try BuiltExecutable(path: "/usr/bin/env")
            .run(["python3", "-c", referenceProgram], stdin: try JSONEncoder().encode(documents))
        try #require(result.status == 0, "python3 with tomllib failed: \(result.stderr)")
        let results = try JSONDecoder().decode([ReferenceResult].self, from: Data(result.stdout.utf8))
        try #require(results.count == documents.count)
        return results
    }

    /// Refusals allowed where tomllib accepts: the forms the subset leaves out on purpose (their
    /// messages say "not supported"), and integers beyond 64 bits, which TOML 1.0 says a parser
    /// must refuse and tomllib accepts anyway.
    static func isDocumentedNarrowing(_ error: TOMLError) -> Bool {
        error.message.contains("not supported") || error.message.hasSuffix("out of range (integers are 64-bit)")
    }

    static func ours(_ document: String) -> Result<TaggedTOMLValue, TOMLError> {
        Result { () throws(TOMLError) in TaggedTOMLValue(try TOML.parse(document)) }
    }

    @Test func documentsInsideTheSubsetMeanTheSameToBoth() throws {
        var generator = TOMLDocumentGenerator(seed: 0x70_4D11_5EED)
        let documents = (0..<500).map { _ in generator.document() }
        let references = try Self.reference(documents)
        for (document, reference) in zip(documents, references) {
            switch Self.ours(document) {
            case .failure(let error):
                Issue.record("refused a document inside the subset: \(error)\n\(document)")
            case .success(let value):
                #expect(reference.ok == value, "tomllib: \(reference.error ?? reference.ok?.description ?? "-")\nours: \(value)\n\(document)")
            }
        }
    }

    /// Valid TOML that the subset refuses, each planted on the last line: (line, column of the error).
    static let outsideForms: [(line: String, column: Int)] = [
        ("zz_outside = 0x1F", 14), ("zz_outside = 0o17", 14), ("zz_outside = 0b101", 14),
        ("zz_outside = 1e3", 14), ("zz_outside = 2.5E-3", 14), ("zz_outside = -1e+2", 14),
        ("zz_outside = inf", 14), ("zz_outside = -inf", 14), ("zz_outside = nan", 14), ("zz_outside = +nan", 14),
        ("zz_outside = 1979-05-27", 14), ("zz_outside = 07:32:00", 14), ("zz_outside = 1979-05-27T07:32:00Z", 14),
        ("zz_outside = \"\"\"multi\"\"\"", 14), ("zz_outside = '''multi'''", 14),
        ("zz_outside.sub = 1", 11), ("[zz_outside.sub]", 12), ("zz_outside = [0x1, 2]", 15),
        ("zz_outside = { k = 1e2 }", 20),
    ]

    @Test func formsJustOutsideTheSubsetAreRefusedWhereTheyStand() throws {
        var generator = TOMLDocumentGenerator(seed: 0x0075_1DE)
        var documents: [String] = [], planted: [(line: Int, column: Int)] = []
        for form in Self.outsideForms {
            for _ in 0..<5 {
                var base = generator.document()
                if !base.isEmpty && !base.hasSuffix("\n") { base += "\n" }
                documents.append(base + form.line + "\n")
                planted.append((base.filter { $0 == "\n" || $0 == "\r\n" }.count + 1, form.column))
            }
        }
        let references = try Self.reference(documents)
        for (i, document) in documents.enumerated() {
            #expect(references[i].ok != nil, "tomllib refused it, so it is no test of the subset: \(references[i].error ?? "")\n\(document)")
            switch Self.ours(document) {
            case .success: Issue.record("accepted a form outside the subset:\n\(document)")
            case .failure(let error):
                #expect(error.message.contains("not supported"), "\(error)")
                #expect(error.position == TOMLPosition(line: planted[i].line, column: planted[i].column), "\(error)\n\(document)")
            }
        }
    }

    /// Characters that matter to TOML's grammar, for one-character mutations.
    static let mutationCharacters: [Unicode.Scalar] = Array("\"'[]{}=,.#\n\r\t\\ +-_e0x:19ab".unicodeScalars) + ["\u{0}", "é"]

    @Test func mutatedDocumentsAreRefusedByBothOrMeanTheSame() throws {
        var generator = TOMLDocumentGenerator(seed: 0x3417_A7ED)
        var random = SplitMix64(seed: 0x3417_A7ED)
        var documents: [String] = []
        while documents.count < 1500 {
            var scalars = Array(generator.document().unicodeScalars)
            guard !scalars.isEmpty else { continue }
            let at = random.int(0...(scalars.count - 1))
            switch random.int(0...2) {
            case 0: scalars.remove(at: at)
            case 1: scalars.insert(random.pick(Self.mutationCharacters), at: at)
            default: scalars[at] = random.pick(Self.mutationCharacters)
            }
            var mutated = String.UnicodeScalarView()
            mutated.append(contentsOf: scalars)
            documents.append(String(mutated))
        }
        let references = try Self.reference(documents)
        var bothAccept = 0, bothRefuse = 0, narrowed = 0
        for (document, reference) in zip(documents, references) {
            switch (Self.ours(document), reference.ok) {
            case (.success(let value), let theirs?):
                #expect(value == theirs, "ours: \(value)\ntomllib: \(theirs)\n\(document.debugDescription)")
                bothAccept += 1
            case (.success(let value), nil):
                Issue.record("accepted what tomllib refuses (\(reference.error ?? "")): \(value)\n\(document.debugDescription)")
            case (.failure, nil):
                bothRefuse += 1
            case (.failure(let error), _?):
                #expect(Self.isDocumentedNarrowing(error), "refused valid TOML that is not outside the subset: \(error)\n\(document.debugDescription)")
                narrowed += 1
            }
        }
        // The mutations must exercise every branch, or this test proves little.
        #expect(bothAccept > 100 && bothRefuse > 100 && narrowed > 0, "accept \(bothAccept), refuse \(bothRefuse), narrowed \(narrowed)")
    }
}
