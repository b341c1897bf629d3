import CCairo
import EdgeSwipeVocabulary
import Testing

@testable import EdgeSwipeSession
@testable import EdgeSwipeSessionModel

/// The presented sheet from its picture (PanelPicture): it looks as the painter paints it directly, it is painted
/// again only when its size, name or grabber side change (not when it moves or fades), and numbers no screen has
/// are left to the painter, which draws them without a trap (OverlayPainterTests).
@Suite("The sheet's picture")
struct PanelPictureTests {
    static let width = 320, height = 200

    /// `frame` drawn on a transparent `width` x `height` output at `scale`, from `picture` if given: its pixels.
    static func pixels(_ frame: OverlayFrame, picture: PanelPicture?, scale: Int = 1) throws -> [UInt32] {
        try OverlayPainter.loadCairo()
        let w = width * scale, h = height * scale
        let surface = try #require(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)))
        defer { cairo_surface_destroy(surface) }
        let cr = try #require(cairo_create(surface))
        cairo_scale(cr, Double(scale), Double(scale))
        OverlayPainter().draw(frame, on: cr, width: Double(width), height: Double(height), panelPicture: picture, scale: scale)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        let data = try #require(cairo_image_surface_get_data(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        return (0..<h).flatMap { y in (0..<w).map { x in UnsafeRawPointer(data).load(fromByteOffset: y * stride + x * 4, as: UInt32.self) } }
    }

    /// The largest difference of one channel between two images of the same size.
    static func largestDifference(_ a: [UInt32], _ b: [UInt32]) -> Int {
        var largest = 0
        for (p, q) in zip(a, b) {
            for shift in stride(from: UInt32(0), to: 32, by: 8) {
                let one = Int((p >> shift) & 0xff), other = Int((q >> shift) & 0xff)
                largest = max(largest, abs(one - other))
            }
        }
        return largest
    }

    static func sheet(x: Double = 0.1, y: Double = 0.25, width: Double = 0.8, height: Double = 0.5, alpha: Double = 1, label: String = "notifications")
        -> OverlayPanel
    {
        OverlayPanel(frame: NormalizedRect(x: x, y: y, width: width, height: height), alpha: alpha, label: label)
    }

    @Test("at whole pixels and full alpha the picture is the sheet painted directly, over a dimming too, at scales 1 and 2", arguments: [1, 2])
    func sameAsPainted(_ scale: Int) throws {
        for marks: [OverlayMark] in [[.panel(Self.sheet())], [.dimming(alpha: 0.4), .panel(Self.sheet())]] {
            let frame = OverlayFrame(marks: marks)
            let direct = try Self.pixels(frame, picture: nil, scale: scale)
            let picture = PanelPicture()
            let composited = try Self.pixels(frame, picture: picture, scale: scale)
            #expect(picture.paintings == 1)
            #expect(Self.largestDifference(direct, composited) <= 1)
            // Something was drawn: the sheet's body is there.
            #expect(composited.contains { $0 >> 24 > 0x80 })
        }
    }

    /// One step of a sheet's life, and whether the picture is painted again for it.
    struct Step: CustomTestStringConvertible {
        let what: String
        let panel: OverlayPanel
        let paints: Bool
        var testDescription: String { what }
    }

    @Test("moving and fading composite the same picture; a new size, name or grabber side paint a new one")
    func repaintedOnlyWhenItChanges() throws {
        let steps = [
            // A sheet coming up from the bottom, its middle below the output's: its grabber at its top.
            Step(what: "first", panel: Self.sheet(y: 0.3), paints: true),
            Step(what: "moved up", panel: Self.sheet(y: 0.28), paints: false),
            Step(what: "moved by a fraction of a pixel", panel: Self.sheet(y: 0.2813), paints: false),
            Step(what: "fading", panel: Self.sheet(y: 0.28, alpha: 0.4), paints: false),
            Step(what: "taller", panel: Self.sheet(y: 0.28, height: 0.6), paints: true),
            Step(what: "another scene", panel: Self.sheet(y: 0.28, height: 0.6, label: "settings"), paints: true),
            Step(what: "its middle above the output's: the grabber goes below", panel: Self.sheet(y: 0.05, height: 0.3, label: "settings"), paints: true),
            Step(what: "moved again", panel: Self.sheet(y: 0.06, height: 0.3, label: "settings"), paints: false),
        ]
        let picture = PanelPicture()
        for step in steps {
            let before = picture.paintings
            _ = try Self.pixels(OverlayFrame(marks: [.panel(step.panel)]), picture: picture)
            #expect((picture.paintings > before) == step.paints, "\(step.what)")
        }
        // A faded sheet is the picture at that alpha: about half of each pixel at 0.5.
        let full = try Self.pixels(OverlayFrame(marks: [.panel(Self.sheet())]), picture: PanelPicture())
        let half = try Self.pixels(OverlayFrame(marks: [.panel(Self.sheet(alpha: 0.5))]), picture: PanelPicture())
        let i = try #require(full.indices.first { full[$0] >> 24 > 0xc0 })
        #expect(abs(Int(half[i] >> 24) - Int(full[i] >> 24) / 2) <= 2)
    }

    @Test("two sheets at once: the first from the picture, the second painted directly, so neither repaints the picture each frame")
    func twoSheets() throws {
        let picture = PanelPicture()
        let two = OverlayFrame(marks: [.panel(Self.sheet(y: 0.3)), .panel(Self.sheet(y: 0.05, height: 0.3, label: "settings"))])
        let direct = try Self.pixels(two, picture: nil)
        for _ in 0..<3 { #expect(Self.largestDifference(direct, try Self.pixels(two, picture: picture)) <= 1) }
        #expect(picture.paintings == 1)
    }

    @Test("numbers no screen has are left to the painter: the picture declines them", arguments: [
        OverlayPanel(frame: NormalizedRect(x: 0, y: 0.2, width: 1, height: 1e300), alpha: 1, label: "n"),
        OverlayPanel(frame: NormalizedRect(x: 0, y: .nan, width: 1, height: 0.5), alpha: 1, label: "n"),
        OverlayPanel(frame: NormalizedRect(x: -1e18, y: 0.2, width: 1, height: 0.5), alpha: 1, label: "n"),
        OverlayPanel(frame: NormalizedRect(x: 0, y: 0.2, width: .infinity, height: 0.5), alpha: 1, label: "n"),
        OverlayPanel(frame: NormalizedRect(x: 0, y: 0.2, width: 3, height: 0.5), alpha: 1, label: "n"),
    ])
    func absurd(_ panel: OverlayPanel) throws {
        try OverlayPainter.loadCairo()
        let surface = try #require(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(Self.width), Int32(Self.height)))
        defer { cairo_surface_destroy(surface) }
        let cr = try #require(cairo_create(surface))
        defer { cairo_destroy(cr) }
        let picture = PanelPicture()
        #expect(!picture.draw(panel, on: cr, width: Double(Self.width), height: Double(Self.height), scale: 1, painter: OverlayPainter()))
        #expect(picture.paintings == 0)
    }
}
