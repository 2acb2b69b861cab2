/// What this build of tenbin is, said in one place: `tenbin --version` prints it and
/// `tenbin serve` publishes it in `/metrics` (`tenbin_build_info`).
public enum TenbinVersion {
    /// The release number, as `tenbin --version` prints it.
    public static let current = "0.1.0"
}
