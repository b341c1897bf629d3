import Hummingbird
import HummingbirdWebSocket

public enum WebAssets {
    public static var page: [UInt8] { PackageResources.index_html }
}
