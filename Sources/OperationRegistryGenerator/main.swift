// OperationRegistryGenerator — the build tool behind OperationRegistryPlugin.
//
// Owns: turning the files of UbiquityProtocol's Operations/ folder into `Operations.declared`,
//   the one list the registry (Operations.swift) derives parsing, encoding and names from.
// Must not: be linked into any product; it runs at build time only.
// Usage: OperationRegistryGenerator OUTPUT DECLARATION.swift…
//   Each declaration file must declare the public type it is named after (one type per file);
//   otherwise the build fails with a line naming the file, so a misnamed file cannot silently
//   drop an operation from the protocol.
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: OperationRegistryGenerator OUTPUT DECLARATION.swift…\n".utf8))
    exit(64)
}

var names: [String] = []
var problems: [String] = []
for path in arguments.dropFirst() {
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        problems.append("\(path): error: cannot read this operation's declaration")
        continue
    }
    // The declaration's own line, e.g. `public struct KVRemove: KeyValueKeyOperation {`.
    let declares = text.split(separator: "\n").contains { line in
        line.hasPrefix("public struct \(name):") || line.hasPrefix("public struct \(name) :")
    }
    if declares {
        names.append(name)
    } else {
        problems.append("\(path):1: error: a file under Operations/ must declare the operation it is named after: expected a line `public struct \(name): …Operation`, found none")
    }
}
guard problems.isEmpty else {
    FileHandle.standardError.write(Data((problems.joined(separator: "\n") + "\n").utf8))
    exit(1)
}

let list = names.map { "        \($0).self," }.joined(separator: "\n")
let source = """
    // Written at build time by OperationRegistryGenerator from the files of Operations/; not tracked.

    extension Operations {
        /// Every file of Operations/, by name.
        static let declared: [any ProtocolOperation.Type] = [
    \(list)
        ]
    }

    """
// Written every time it runs (it runs only when a declaration changed): an output left older than
// its inputs would make the build run this again on every build.
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("error: cannot write \(output): \(error)\n".utf8))
    exit(1)
}
