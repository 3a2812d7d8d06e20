import Foundation
import Glibc
import Synchronization
@testable import GroceryStore
import Testing
import UbiquityKit
import UbiquityTesting

/// What another user of a shared container can put where Grocery expects its files: FIFOs,
/// devices, symbolic links. Every case ends in a clear error at once — never a hang, never an
/// unbounded read, never a write or delete through the link.
@Suite(.ownThreads) struct GroceryHostileFilesTests {
    /// Runs `body` on another thread and returns the error it threw as text. If it has not
    /// returned within 5 s it is blocked (on the FIFO `fifo`): the FIFO is then opened for
    /// writing, which releases the blocked reader, and the result says so.
    static func errorText(releasing fifo: String? = nil, _ body: @escaping @Sendable () throws -> Void) async -> String {
        let done = Mutex<String?>(nil)
        let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let bodyEnded = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            finished.withLock { $0 = continuation }
            Thread.detachNewThread {
                let text: String
                do { try body(); text = "no error" } catch { text = "\(error)" }
                done.withLock { $0 = $0 ?? text }
                bodyEnded.signal()
                finished.withLock { $0?.resume(); $0 = nil }
            }
            Thread.detachNewThread {
                _ = bodyEnded.wait(timeout: .now() + 5)     // the body's end, or the deadline
                guard done.withLock({ value in
                    if value == nil { value = "blocked for 5 s" ; return true }
                    return false
                }) else { return }
                if let fifo { let fd = open(fifo, O_WRONLY | O_NONBLOCK); if fd >= 0 { close(fd) } }
                finished.withLock { $0?.resume(); $0 = nil }
            }
        }
        return done.withLock { $0 ?? "" }
    }

    static func expectRefused(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(text.contains("not a regular file") || text.contains("symbolic link") || text.contains("not a directory"),
                "\(text)", sourceLocation: sourceLocation)
    }

    @Test func anImageFileThatIsAFIFOOrALinkToDevZeroIsRefusedAtOnce() async throws {
        try await PackageFixture.with { fixture in
            let fifo = fixture.directory + "/picture.png"
            #expect(mkfifo(fifo, 0o600) == 0)
            Self.expectRefused(await Self.errorText(releasing: fifo) { _ = try GroceryImageFile.read(fifo) })
            let zero = fixture.directory + "/zero.png"
            #expect(symlink("/dev/zero", zero) == 0)
            Self.expectRefused(await Self.errorText { _ = try GroceryImageFile.read(zero) })
        }
    }

    @Test func itemsJSONAsAFIFOOrALinkIsACorruptPackageNotAHang() async throws {
        try await PackageFixture.with { fixture in
            try await fixture.update { _ = try $0.add(name: "Milk") }
            let items = fixture.package.path + "/items.json"
            #expect(unlink(items) == 0)
            #expect(mkfifo(items, 0o600) == 0)
            let package = fixture.package
            let fifoError = await Self.errorText(releasing: items) { _ = try package.load() }
            Self.expectRefused(fifoError)
            // Stop here if that failed: the same code would read /dev/zero until memory runs out.
            try #require(!fifoError.contains("blocked"))
            // A writer reads it under the lock the same way: refused, never blocked on.
            await #expect(throws: UbiquityKitError.documentFile(path: items, reason: "it is not a regular file")) {
                try await fixture.update(lockTimeout: .seconds(5)) { _ = try $0.add(name: "Bread") }
            }
            #expect(unlink(items) == 0)
            #expect(symlink("/dev/zero", items) == 0)
            Self.expectRefused(await Self.errorText { _ = try package.load() })
            await #expect(throws: UbiquityKitError.documentFile(path: items, reason: "it is a symbolic link, not a file")) {
                try await fixture.update(lockTimeout: .seconds(5)) { _ = try $0.add(name: "Bread") }
            }
        }
    }

    @Test func aSymlinkedImagesDirectoryIsRefusedAndNothingBehindItIsTouched() async throws {
        try await PackageFixture.with { fixture in
            let milk = try await fixture.update { try $0.add(name: "Milk") }
            try await fixture.update { try $0.setImage(SampleImage.png, for: milk.id) }
            // Someone replaces images/ by a link to a directory of theirs (or of the victim's).
            let victim = fixture.directory + "/victim"
            try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: false)
            #expect(FileManager.default.createFile(atPath: victim + "/precious.txt", contents: Data("keep".utf8)))
            let images = fixture.package.path + "/images"
            try FileManager.default.removeItem(atPath: images)
            #expect(symlink(victim, images) == 0)

            await #expect(throws: UbiquityKitError.self) { try await fixture.update { try $0.setImage(SampleImage.jpeg, for: milk.id) } }
            #expect(throws: GroceryError.self) { _ = try fixture.package.image(for: milk.id) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: victim) == ["precious.txt"])
            // An unrelated change lists images/ too, and still never touches the link's target.
            await #expect(throws: UbiquityKitError.self) { try await fixture.update { _ = try $0.add(name: "Bread") } }
            #expect(try FileManager.default.contentsOfDirectory(atPath: victim) == ["precious.txt"])
            #expect(try fixture.package.load().items.map(\.name) == ["Milk"])
        }
    }
}
