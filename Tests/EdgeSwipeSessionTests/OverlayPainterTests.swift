import CCairo
import EdgeSwipeVocabulary
import Glibc
import Testing

@testable import EdgeSwipeSession
@testable import EdgeSwipeSessionModel

/// The painter on the Wayland thread: a number from the stream that no screen has must not end the session
/// (hostile-4 s09: a presentation panel 1e300 tall trapped in `Int()` while counting its rows).
@Suite("The overlay's painter: numbers no screen has")
struct OverlayPainterTests {
    @Test("panels of absurd sizes are drawn (or not) without a trap: 1e300, -1e300, infinity, NaN, 1e18 tall")
    func absurdPanels() async {
        await #expect(processExitsWith: .success) {
            var why = [CChar](repeating: 0, count: 256)
            // Without cairo there is nothing to test: exit as a failure would, so that the test says so.
            guard edgeswipe_cairo_load(&why, why.count) == 0 else { exit(3) }
            guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 320, 200), let cr = cairo_create(surface) else { exit(4) }
            for height in [1e300, -1e300, .infinity, .nan, 1e18] {
                let panel = OverlayPanel(frame: NormalizedRect(x: 0, y: 0.2, width: 1, height: height), alpha: 1, label: "notifications")
                OverlayPainter().draw(OverlayFrame(marks: [.panel(panel)]), on: cr, width: 320, height: 200)
            }
            cairo_destroy(cr)
            cairo_surface_destroy(surface)
            exit(0)
        }
    }
}
