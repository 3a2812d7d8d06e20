import Glibc
import Testing
import UbiquitySystem

/// The door's one description of a failed call, and `System.call` itself.
@Suite("SystemCallError")
struct SystemCallErrorTests {
    @Test func aFailedCallCarriesItsNameErrnoAndPath() {
        #expect {
            try System.call("openat", path: "/nope") { open("/nonexistent/really", O_RDONLY) }
        } throws: { error in
            guard let error = error as? SystemCallError else { return false }
            return error.call == "openat" && error.errno == ENOENT && error.path == "/nope" && error.code.rawValue == "system.call"
                && error.message == "No such file or directory" && error.errnoName == "ENOENT"
                && error.description == "openat failed for /nope: No such file or directory (ENOENT)"
        }
        #expect(SystemCallError("fsync", errno: EIO).description == "fsync failed: Input/output error (EIO)")
    }

    @Test func eintrIsRetriedAndOtherResultsPassThrough() throws {
        var attempts = 0
        let value = try System.call("fake") { () -> Int32 in
            attempts += 1
            if attempts < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(value == 7 && attempts == 3)
    }

    @Test func aModuleErrorCarriesTheFailureAsItIs() {
        struct Wrapped: SystemCallWrapping {
            let failure: SystemCallError
            init(_ failure: SystemCallError) { self.failure = failure }
        }
        #expect {
            try System.call("close", as: Wrapped.self) { close(-1) }
        } throws: { error in
            (error as? Wrapped)?.failure == SystemCallError("close", errno: EBADF)
        }
        // libsystemd's form: a negative errno returned, not set.
        #expect {
            try System.callReturningErrno("sd_notify", as: Wrapped.self) { -ECONNREFUSED }
        } throws: { error in
            (error as? Wrapped)?.failure.errno == ECONNREFUSED
        }
    }
}
