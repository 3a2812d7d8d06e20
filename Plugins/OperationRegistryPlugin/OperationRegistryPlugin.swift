// OperationRegistryPlugin — writes UbiquityProtocol's list of operations from its Operations/ folder.
//
// Owns: deciding which files declare operations (every Swift file directly under a folder named
//   `Operations`) and asking `OperationRegistryGenerator` to list them, on each build in which that
//   set or one of those files changed.
// Must not: read or judge the declarations itself (the generator does, and fails the build with
//   a message naming the file when one does not declare the type it is named after).
// Why: adding an operation is then two files, its declaration and its handler; there is no list to
//   forget (docs/architecture.md, "How to add a protocol operation").
import PackagePlugin

@main
struct OperationRegistryPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let declarations = module.sourceFiles(withSuffix: "swift")
            .map(\.url)
            .filter { $0.deletingLastPathComponent().lastPathComponent == "Operations" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "Operations+Declared.swift")
        return [
            .buildCommand(
                displayName: "Listing \(declarations.count) protocol operations of \(module.name)",
                executable: try context.tool(named: "OperationRegistryGenerator").url,
                arguments: [output.path] + declarations.map(\.path),
                inputFiles: declarations,
                outputFiles: [output]
            ),
        ]
    }
}
