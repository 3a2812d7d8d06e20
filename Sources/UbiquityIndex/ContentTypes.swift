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

    /// Type → the types that directly conform to it: the tree, written once, parent first.
    static let children: KeyValuePairs<String, [String]> = [
        "public.item": ["public.data", "public.directory", "public.symlink"],
        "public.directory": ["public.folder", "com.apple.package"],
        "public.data": ["public.text", "public.image", "public.composite-content", "public.audio", "public.movie",
                        "public.archive", "public.database"],
        "public.text": ["public.plain-text", "public.rtf", "public.html", "public.xml", "public.json", "public.yaml",
                        "public.toml", "public.comma-separated-values-text", "public.tab-separated-values-text"],
        "public.plain-text": ["public.log", "net.daringfireball.markdown", "public.source-code"],
        "public.source-code": ["public.swift-source", "public.c-source", "public.c-header", "public.c-plus-plus-source",
                               "public.script"],
        "public.script": ["public.python-script", "public.shell-script", "com.netscape.javascript-source"],
        "public.image": ["public.png", "public.jpeg", "com.compuserve.gif", "public.heic", "org.webmproject.webp",
                         "public.svg-image", "public.tiff", "com.microsoft.bmp"],
        "public.composite-content": ["com.adobe.pdf"],
        "public.audio": ["public.mp3", "com.apple.m4a-audio", "com.microsoft.waveform-audio", "org.xiph.flac"],
        "public.movie": ["public.mpeg-4", "com.apple.quicktime-movie"],
        "public.archive": ["public.zip-archive", "org.gnu.gnu-zip-archive", "public.tar-archive"],
    ]

    /// Type → the type it directly conforms to (``children`` read the other way).
    static let parent: [String: String] = {
        var parent: [String: String] = [:]
        for (type, conforming) in children {
            for child in conforming { parent[child] = type }
        }
        return parent
    }()

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
