/// The release of Ubiquity for Linux: one number for `ubiquityd`, `ubiq` and `grocery` (their
/// `--version`), and what the daemon reports in `hello` and `status`. Here, below the daemon and
/// every client, so that there is exactly one place to change it.
public enum UbiquityVersion {
    public static let string = "0.4.0"
}
