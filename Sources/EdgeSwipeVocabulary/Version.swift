/// The version every tool prints with `--version` (`edgeswiped`, `edgeswipectl`, `edgeswipe-web`) and the daemon
/// sends in `hello`.
public enum EdgeSwipeVersion {
    public static let string = "0.1.0"
}
