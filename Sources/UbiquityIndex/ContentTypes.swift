/// Uniform type identifiers from file extensions (Linux has no UniformTypeIdentifiers).
///
/// One table: extension → type, and type → the type it conforms to, so
/// `kMDItemContentTypeTree` of a PNG is `public.png, public.image, public.data, public.item`.
public enum ContentTypes {
    public static let folder = "public.folder"
    public static let symlink = "public.symlink"
    public static let data = "public.data"
    public static let package = "com.apple.package"

    /// Lowercased extension → type identifier.
    static let byExtension: [String: String] = [
        "txt": "public.plain-text", "text": "public.plain-text", "log": "public.log",
        "md": "net.daringfireball.markdown", "markdown": "net.daringfireball.markdown",
        "rtf": "public.rtf", "html": "public.html", "htm": "public.html", "xml": "public.xml",
        "json": "public.json", "yaml": "public.yaml", "yml": "public.yaml", "toml": "public.toml",
        "csv": "public.comma-separated-values-text", "tsv": "public.tab-separated-values-text",
        "swift": "public.swift-source", "c": "public.c-source", "h": "public.c-header",
        "cpp": "public.c-plus-plus-source", "py": "public.python-script", "sh": "public.shell-script",
        "js": "com.netscape.javascript-source", "png": "public.png", "jpg": "public.jpeg",
        "jpeg": "public.jpeg", "gif": "com.compuserve.gif", "heic": "public.heic", "webp": "org.webmproject.webp",
        "svg": "public.svg-image", "tif": "public.tiff", "tiff": "public.tiff", "bmp": "com.microsoft.bmp",
        "pdf": "com.adobe.pdf", "mp3": "public.mp3", "m4a": "com.apple.m4a-audio", "wav": "com.microsoft.waveform-audio",
        "flac": "org.xiph.flac", "mp4": "public.mpeg-4", "mov": "com.apple.quicktime-movie",
        "zip": "public.zip-archive", "gz": "org.gnu.gnu-zip-archive", "tar": "public.tar-archive",
        "sqlite": "public.database", "db": "public.database",
    ]

    /// Type → the type it directly conforms to.
    static let parent: [String: String] = [
        "public.plain-text": "public.text", "public.log": "public.plain-text",
        "net.daringfireball.markdown": "public.plain-text", "public.rtf": "public.text",
        "public.html": "public.text", "public.xml": "public.text", "public.json": "public.text",
        "public.yaml": "public.text", "public.toml": "public.text",
        "public.comma-separated-values-text": "public.text", "public.tab-separated-values-text": "public.text",
        "public.swift-source": "public.source-code", "public.c-source": "public.source-code",
        "public.c-header": "public.source-code", "public.c-plus-plus-source": "public.source-code",
        "public.python-script": "public.script", "public.shell-script": "public.script",
        "com.netscape.javascript-source": "public.script", "public.script": "public.source-code",
        "public.source-code": "public.plain-text", "public.text": "public.data",
        "public.png": "public.image", "public.jpeg": "public.image", "com.compuserve.gif": "public.image",
        "public.heic": "public.image", "org.webmproject.webp": "public.image", "public.svg-image": "public.image",
        "public.tiff": "public.image", "com.microsoft.bmp": "public.image", "public.image": "public.data",
        "com.adobe.pdf": "public.composite-content", "public.composite-content": "public.data",
        "public.mp3": "public.audio", "com.apple.m4a-audio": "public.audio",
        "com.microsoft.waveform-audio": "public.audio", "org.xiph.flac": "public.audio", "public.audio": "public.data",
        "public.mpeg-4": "public.movie", "com.apple.quicktime-movie": "public.movie", "public.movie": "public.data",
        "public.zip-archive": "public.archive", "org.gnu.gnu-zip-archive": "public.archive",
        "public.tar-archive": "public.archive", "public.archive": "public.data",
        "public.database": "public.data", "public.data": "public.item",
        "public.folder": "public.directory", "com.apple.package": "public.directory",
        "public.directory": "public.item", "public.symlink": "public.item",
    ]

    /// The type of a regular file from its name.
    public static func forFile(named name: String) -> String {
        guard let ext = pathExtension(name) else { return data }
        return byExtension[ext.lowercased()] ?? data
    }

    /// `[type, its parent, ..., public.item]`; a declared package type conforms to com.apple.package.
    public static func tree(_ type: String) -> [String] {
        var chain = [type]
        var current = type
        while let next = parent[current] ?? (current.hasPrefix("public.") || current == package ? nil : package),
              !chain.contains(next) {
            chain.append(next)
            current = next
        }
        if chain.last != "public.item" { chain.append("public.item") }
        return chain
    }

    /// The extension after the last dot, if the name has one that is not its first character.
    public static func pathExtension(_ name: String) -> Substring? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : ext
    }
}
