import Testing
import UbiquityProtocol
import UbiquityTesting

/// One version for the whole project: `ubiq`, `grocery` and `ubiquityd` print the same
/// `--version`, the one the daemon reports in `hello` and `status`.
@Suite(.ownThreads) struct VersionTests {
    @Test(arguments: ["ubiq", "grocery", "ubiquityd"])
    func everyExecutablePrintsTheSharedVersion(_ name: String) throws {
        let r = try BuiltExecutable(name).run(["--version"], deadline: 20)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == UbiquityVersion.string + "\n", "\(name) --version")
    }
}
