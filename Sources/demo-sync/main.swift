// demo-sync — the two-device rig for a person (this file holds its entry point).
//
// Owns: the command line (only --help), starting UbiquityTesting's TwoDevices, printing how to
//   reach each device, and stopping everything on SIGINT or SIGTERM — also when its output is a
//   pipe whose reader is gone (`make demo-sync | tee log`, Ctrl-C: tee dies of the same SIGINT).
// Must not: build the rig itself (TwoDevices does, for the tests too), or be installed
//   (Packaging/install.sh copies ubiquityd, ubiq and grocery only).
// Depends on: UbiquityTesting, Foundation.
import Dispatch
import Foundation
import Glibc
import Synchronization
import UbiquityTesting

// A reader that went away must not end demo-sync before it has stopped what it started: writing
// to its pipe fails with EPIPE instead of killing the process, and printing stops (`Output`).
signal(SIGPIPE, SIG_IGN)

/// Standard output or error, written with write(2): a write that fails (EPIPE: nobody reads any
/// more; EIO: the terminal is gone) ends the printing to that stream, never the program — unlike
/// FileHandle.write, which traps, and SIGPIPE, which kills.
final class Output: Sendable {
    let descriptor: Int32
    private let broken = Atomic<Bool>(false)

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty && !broken.load(ordering: .relaxed) {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written >= 0 {
                bytes = bytes.dropFirst(written)
            } else if errno != EINTR {
                broken.store(true, ordering: .relaxed)
            }
        }
    }
}
let standardOutput = Output(STDOUT_FILENO)
let standardError = Output(STDERR_FILENO)

let usage = """
    USAGE: demo-sync

    Starts two devices on this machine: two container roots holding com.example.grocery, two
    ubiquityd and two Syncthing instances replicating the container, the Syncthing instances in a
    private network namespace (loopback only; discovery, relays, NAT, reporting and upgrades off).
    Each ubiquityd follows its device's Syncthing ([sync]): items carry real sync attributes.
    Prints each device's socket and commands to try, then waits. Ctrl-C or SIGTERM stops
    everything it started and removes its temporary directories (exit 0). Needs root (unshare).

    """

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--help"] || arguments == ["-h"] {
    standardOutput.write(usage)
    exit(0)
}
guard arguments.isEmpty else {
    standardError.write("demo-sync: unexpected argument '\(arguments[0])'\n\n\(usage)")
    exit(64)
}

// Read as events rather than handled, so that a Ctrl-C during start-up still stops the rig once
// it exists, and the stop runs outside a signal handler.
let (stopRequests, stop) = AsyncStream.makeStream(of: Int32.self)
let signalSources = [SIGINT, SIGTERM].map { number in
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number)
    source.setEventHandler { @Sendable in stop.yield(number) }     // runs on a Dispatch queue, not the main actor
    source.resume()
    return source
}

/// Unbuffered, so that whoever reads a pipe sees each line as it is said.
func say(_ text: String) {
    standardOutput.write(text)
}

let devices: TwoDevices
do {
    say("Starting two devices (two ubiquityd, two Syncthing instances)…\n")
    devices = try await TwoDevices.start(followingSyncthing: true)
} catch {
    standardError.write("demo-sync: \(error)\n")
    exit(1)
}

/// A path or argument as the shell reads it back.
func quoted(_ word: String) -> String {
    let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "/._-+=:,@%".contains($0) }
    return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

let grocery = quoted(BuiltExecutable("grocery").url.path)
let ubiq = quoted(BuiltExecutable("ubiq").url.path)
var banner = "\nTwo devices replicating \(TwoDevices.containerID) through Syncthing (private network namespace, loopback only).\n"
for device in [devices.a, devices.b] {
    banner += """

        Device \(device.name.uppercased())
          container  \(device.container)
          socket     \(device.socket)
          syncthing  \(device.syncthing.socket)

        """
}
let (a, b) = (quoted(devices.a.socket), quoted(devices.b.socket))
banner += """

    Try, each in its own terminal:
      B: \(grocery) watch --socket \(b)
      A: \(grocery) add milk --socket \(a)
      A: \(ubiq) watch "name LIKE 'Item_*'" --socket \(a)
      B: \(grocery) list --socket \(b)

    A relational store (rows and tags, merged column by column, each device writing its own log):
      B: \(grocery) --store relational watch --socket \(b)
      A: \(grocery) --store relational add carrots --tag mall --tag "green grocer" --socket \(a)
      B: \(grocery) --store relational list --tag mall --socket \(b)
      B: \(ubiq) store fetch grocery items --related tags --socket \(b)
      A: \(ubiq) store status --socket \(a)

    Sync status (each daemon follows its Syncthing):
      A: \(ubiq) watch "isUploaded == NO" --attr name --attr isUploaded --socket \(a)
      B: \(grocery) status --socket \(b)
      A: \(ubiq) storage --socket \(a)

    The engine itself:
      A: curl -s --unix-socket \(quoted(devices.a.syncthing.socket)) -H 'X-API-Key: \(devices.a.syncthing.apiKey)' http://syncthing/rest/system/connections

    Ready. Ctrl-C (or SIGTERM) stops both daemons and both Syncthing instances and removes \(devices.directory).

    """
say(banner)

for await _ in stopRequests { break }
say("Stopping…\n")
devices.stop()
signalSources.forEach { $0.cancel() }
say("Stopped.\n")
exit(0)
