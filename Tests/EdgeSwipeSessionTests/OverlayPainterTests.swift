import CCairo
import EdgeSwipeVocabulary
import Glibc
import Testing

@testable import EdgeSwipeSession
@testable import EdgeSwipeSessionModel

/// What the painter draws for an indicator, read back from an offscreen cairo image (`OverlayImage`): how far it
/// reaches for how far the finger went, and the finger dots at scale 1. The overlay on a real sway is in
/// `OverlaySwayTests`. A number from the stream that no screen has must not end the session either (hostile-4 s09: a
/// presentation panel 1e300 tall once trapped in `Int()` while counting its rows).
@Suite("The overlay's painter")
struct OverlayPainterTests {
    static let width = 1000, height = 600

    /// A left-edge indicator at mid-height, the finger `pixels` in from the edge of a 1000 px wide output.
    static func indicator(pixels: Double, fingers: Int = 1) -> EdgeIndicator {
        let travel = pixels / Double(width)
        return EdgeIndicator(edge: .left, along: 0.5, reach: travel / 0.5, travel: travel, commit: 0, alpha: 1, style: .transition(fingers: fingers))
    }

    static func image(_ i: EdgeIndicator) throws -> OverlayImage {
        try OverlayImage(OverlayFrame(marks: [.indicator(i)]), width: width, height: height)
    }

    /// The knob's outer edge in the finger's row: the last nearly opaque pixel from the left.
    static func knobEdge(_ image: OverlayImage) -> Int? {
        (0..<image.width).last { image.pixel($0, image.height / 2).a > 200 }
    }

    @Test("the knob follows the finger one for one at first, then ever more slowly up to its limit, never stopping dead", arguments: [
        (30.0, 30.0...30.0), (60, 60...60), (120, 100...110), (300, 130...140), (600, 142...150), (900, 146...154),
    ])
    func depthFollowsTheFinger(_ pixels: Double, _ expected: ClosedRange<Double>) throws {
        let i = Self.indicator(pixels: pixels)
        let depth = OverlayPainter.depth(i, extent: Double(Self.width))
        #expect(expected.contains(depth), "\(pixels) px of travel: depth \(depth)")
        #expect(OverlayPainter.depth(Self.indicator(pixels: pixels + 60), extent: Double(Self.width)) > depth + 0.5, "still moving")
        // Drawn: the knob's edge is 4 px inside the bump's tip (once the bump is deeper than the knob is wide).
        if depth > 2 * OverlayPainter.knobRadius + 4 {
            let edge = try #require(Self.knobEdge(try Self.image(i)))
            #expect(abs(Double(edge) - (depth - 4)) <= 2, "the knob's edge at \(edge) px for a depth of \(depth)")
        }
    }

    @Test("numbers from the stream are clamped: no travel, a negative or a non-finite one draws a flat bump; a huge one, the limit")
    func clamped() {
        for travel in [0.0, -3, .nan, -.infinity] {
            let i = EdgeIndicator(edge: .left, along: 0.5, reach: 0, travel: travel, commit: 0, alpha: 1, style: .transition(fingers: 1))
            #expect(OverlayPainter.depth(i, extent: 1000) == 0, "\(travel)")
        }
        for travel in [1e9, .infinity] {
            let i = EdgeIndicator(edge: .left, along: 0.5, reach: 2, travel: travel, commit: 0, alpha: 1, style: .transition(fingers: 1))
            let depth = OverlayPainter.depth(i, extent: 1000)
            #expect(depth <= OverlayPainter.maxDepth && (travel.isFinite ? depth > 150 : depth == 0), "\(travel): \(depth)")
        }
    }

    @Test("a dot per finger under the chevron, readable at scale 1: each at least 4 px across, apart from the next", arguments: [2, 3, 4])
    func fingerDots(_ fingers: Int) throws {
        let i = Self.indicator(pixels: 200, fingers: fingers)
        let image = try Self.image(i)
        let knob = try #require(Self.knobEdge(image))
        // The dots' row: 10 px below the finger's; dark ink on the light knob.
        let y = image.height / 2 + 10
        var runs: [Int] = []
        var run = 0
        for x in max(0, knob - 60)...knob {
            let p = image.pixel(x, y)
            if p.a > 200 && p.r < 90 { run += 1 } else if run > 0 { runs.append(run); run = 0 }
        }
        if run > 0 { runs.append(run) }
        #expect(runs.count == fingers, "\(runs)")
        #expect(runs.allSatisfy { $0 >= 4 }, "\(runs)")
    }

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
