import Testing
@testable import UbiquityTesting

/// The rig's Syncthing configuration, whatever `syncthing generate` chose (pure).
@Suite struct TwoDevicesConfigurationTests {
    /// `generate` writes `default` and 8384, or random ports when those looked taken on the host
    /// (another rig generating at the same moment): either way, one listen address of ours and
    /// the GUI on the rig's socket.
    @Test(arguments: [("default", "127.0.0.1:8384"), ("tcp://0.0.0.0:41083", "127.0.0.1:41817")])
    func listenAndGUIAddressesAreTheRigsWhateverGenerateWrote(generated: (listen: String, gui: String)) {
        let config = """
            <configuration version="37">
                <gui enabled="true" tls="false" debugging="false">
                    <address>\(generated.gui)</address>
                </gui>
                <options>
                    <listenAddress>\(generated.listen)</listenAddress>
                    <reconnectionIntervalS>60</reconnectionIntervalS>
                </options>
            </configuration>
            """
        let written = TwoDevices.configured(config, listen: 22101, gui: "/tmp/rig/rest.sock", folder: "/tmp/rig/a",
                                            ids: ["A", "B"], peers: [TwoDevices.Peer(id: "B", name: "b", port: 22102)])
        #expect(written.matches(of: /<listenAddress>/).count == 1)
        #expect(written.contains("<listenAddress>tcp://127.0.0.1:22101</listenAddress>"))
        #expect(written.contains("<address>/tmp/rig/rest.sock</address>"))
        #expect(!written.contains(generated.gui))
        #expect(written.contains("<reconnectionIntervalS>1</reconnectionIntervalS>"))
        #expect(written.contains("<address>tcp://127.0.0.1:22102</address>"), "a dials b")
    }

    /// Only a dials: b has no address for a (discovery is off), so the two never dial each other
    /// at once.
    @Test func onlyOneSideDials() {
        let config = "<configuration version=\"37\">\n    <gui enabled=\"true\">\n        <address>127.0.0.1:8384</address>\n    </gui>\n    <options>\n    </options>\n</configuration>"
        let written = TwoDevices.configured(config, listen: 22102, gui: "/tmp/rig/rest.sock", folder: "/tmp/rig/b",
                                            ids: ["A", "B"], peers: [TwoDevices.Peer(id: "A", name: "a", port: nil)])
        #expect(written.contains("<address>dynamic</address>"))
        #expect(!written.contains("tcp://127.0.0.1:22101"))
    }

    /// A device that joins later dials every device before it (they listen already), and `a`
    /// and `b` only accept it; every device's folder is shared with every device.
    @Test func aDeviceJoiningLaterDialsTheOthersAndEveryFolderIsSharedWithAll() {
        #expect(TwoDevices.dials(0, 1) && !TwoDevices.dials(1, 0))
        #expect(!TwoDevices.dials(0, 2) && !TwoDevices.dials(1, 2))
        #expect(TwoDevices.dials(2, 0) && TwoDevices.dials(2, 1))
        #expect(TwoDevices.dials(3, 2) && !TwoDevices.dials(2, 3))
        let config = "<configuration version=\"37\">\n    <gui enabled=\"true\">\n        <address>127.0.0.1:8384</address>\n    </gui>\n    <options>\n    </options>\n</configuration>"
        let written = TwoDevices.configured(config, listen: 22103, gui: "/tmp/rig/rest.sock", folder: "/tmp/rig/c", ids: ["A", "B", "C"],
                                            peers: [TwoDevices.Peer(id: "A", name: "a", port: 22101), TwoDevices.Peer(id: "B", name: "b", port: 22102)])
        #expect(written.contains("<address>tcp://127.0.0.1:22101</address>") && written.contains("<address>tcp://127.0.0.1:22102</address>"))
        #expect(written.matches(of: /<device id="[ABC]"><\/device>/).count == 3, "the folder lists all three devices")
        #expect(written.matches(of: /<device id="[AB]" name=/).count == 2, "both peers are declared")
    }
}
