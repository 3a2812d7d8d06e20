import FoundationEssentials
import GroceryStore

/// Grocery's `items.json`, the list inside a `grocery.gro` package, as it arrives from another
/// device.
///
/// - It is read, or refused as a damaged package (``GroceryError/corruptPackage(path:reason:)``).
/// - What is read is written back and read again to the same list.
public enum GroceryPackageCheck: FuzzCheck {
    public static let name = "grocery-package"

    public static func accepts(_ bytes: [UInt8]) -> Bool { (try? PackageDocument.decode(Data(bytes), file: "items.json")) != nil }

    public static func check(_ bytes: [UInt8]) -> String? {
        let contents: GroceryPackageContents
        do { contents = try PackageDocument.decode(Data(bytes), file: "items.json") } catch {
            guard case GroceryError.corruptPackage = error else { return "refused with another error: \(error)" }
            return nil
        }
        do {
            guard try PackageDocument.decode(PackageDocument.encode(contents), file: "items.json") == contents else {
                return "the list written back reads as another list"
            }
        } catch {
            return "the list written back is refused: \(error)"
        }
        return nil
    }
}
