import Glibc

extension TestDaemon {
    /// A daemon whose `com.example.grocery` is root's and shared with group `group` (its members
    /// may use it), with its directory opened (mkdtemp's 0700 becomes 0755) so that a user of that
    /// group, run through `setpriv`, reaches the socket and the container. Needs root.
    public static func sharedWithGroup(_ group: UInt32) throws -> TestDaemon {
        let daemon = try TestDaemon(arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"]) { root in
            try """
            [[containers]]
            id = "com.example.grocery"
            path = "\(root)/com.example.grocery"
            owner = 0
            group = \(group)
            """.write(toFile: root + "/../ubiquityd.toml", atomically: true, encoding: .utf8)
        }
        chmod(daemon.directory, 0o755)
        return daemon
    }
}
