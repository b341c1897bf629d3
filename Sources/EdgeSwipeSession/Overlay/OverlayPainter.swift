import CCairo
public import EdgeSwipeSessionModel
import EdgeSwipeVocabulary
import Glibc

/// A rectangle in an output's logical pixels.
public struct OverlayRect: Hashable, Sendable {
    public var x, y, width, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public func union(_ o: OverlayRect) -> OverlayRect {
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return OverlayRect(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }
    /// Within `0...width` × `0...height`; `nil` when nothing is left.
    public func clipped(width w: Double, height h: Double) -> OverlayRect? {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(w, maxX), y1 = min(h, maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return OverlayRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// Draws an ``OverlayFrame`` with cairo, in an output's logical pixels (the caller scales the context for HiDPI).
///
/// The look follows Android's predictive back and iOS's edge pan: at the edge the finger came from, a soft bump
/// grows out under the finger with a round knob and a chevron pointing the way the content goes. The bump follows
/// the finger one for one at first, then ever more slowly up to a limit (as Android's back arrow does), so that its
/// depth says how far the finger went; the knob turns the accent colour when a release would finish, and fades as
/// the run-out carries the transition home. A multi-finger swipe's knob is larger and shows a dot per finger; a
/// blocked swipe's rubber band is a grey knob with a dash, stretched and springing back. A modal presentation is a
/// translucent sheet with a grabber and its scene's name, and nothing else (it is feedback, not a shell: it has
/// none of the scene's content), over the dimming.
public struct OverlayPainter: Sendable {
    public var accent: OverlaySettings.RGB

    public init(accent: OverlaySettings.RGB = OverlaySettings.defaultAccent) {
        self.accent = accent
    }

    /// How far the bump follows the finger one for one, in logical pixels, and the most it ever reaches out: past
    /// `followDepth` it keeps moving with the finger, ever more slowly, toward `maxDepth` (half of the way there
    /// 88 px further, three quarters 264 px further: on a wide screen it still moves near the threshold).
    static let followDepth = 72.0
    static let maxDepth = 160.0
    /// The depth from which the bump has its full length along the edge.
    static let fullLengthDepth = 46.0
    /// Half the bump's length along the edge at full length.
    static let halfLength = 78.0
    static let knobRadius = 19.0
    /// A multi-finger swipe's knob: larger, to hold a readable dot per finger under its chevron.
    static let multiFingerKnobRadius = 23.0
    /// The finger dots: their radius and the distance between their centres, at most (logical pixels).
    static let dotRadius = 2.75
    static let dotSpacing = 8.5
    /// The rubber band's bump at its limit, and its knob: smaller, so that it shows early (the band itself stops
    /// short of its limit, and most of its travel comes first).
    static let blockedDepth = 40.0
    static let blockedKnobRadius = 14.0

    // MARK: Geometry

    /// The bump's depth for `indicator` on an output whose extent across the indicator's edge is `extent` logical
    /// pixels: a transition's follows its travel (the finger's, on a touchscreen) one for one up to
    /// ``followDepth``, then approaches ``maxDepth`` hyperbolically, with the same slope at the joint, so that the
    /// knob never stops dead; a rubber band's follows its stretch.
    static func depth(_ i: EdgeIndicator, extent: Double) -> Double {
        switch i.style {
        case .transition:
            let raw = i.travel * extent
            guard raw.isFinite else { return 0 }
            let travel = min(1e6, max(0, raw))
            guard travel > followDepth else { return travel }
            let beyond = travel - followDepth, room = maxDepth - followDepth
            return followDepth + room * beyond / (beyond + room)
        case .blocked:
            return blockedDepth * pow(min(1.3, max(0, i.reach)), 0.6)
        }
    }

    /// The output's extent across `edge`: its width for the left and right edges, its height for the others.
    static func extent(across edge: Edge, width: Double, height: Double) -> Double {
        edge.isHorizontal ? width : height
    }

    /// The logical rectangle `mark` covers on an output of `size`, for damage.
    static func bounds(of mark: OverlayMark, width: Double, height: Double) -> OverlayRect {
        switch mark {
        case .dimming:
            return OverlayRect(x: 0, y: 0, width: width, height: height)
        case .panel(let p):
            return OverlayRect(
                // Its hairline, its shadow 3 below, and the whole pixel it may be moved by (PanelPicture).
                x: p.frame.x * width - 2, y: p.frame.y * height - 2, width: p.frame.width * width + 4,
                height: p.frame.height * height + 6)
        case .indicator(let i):
            // The glow runs along the whole edge; the bump and its shadow stay within its depth of it.
            let out = max(depth(i, extent: extent(across: i.edge, width: width, height: height)), glowWidth(i)) + 6
            switch i.edge {
            case .left: return OverlayRect(x: 0, y: 0, width: out, height: height)
            case .right: return OverlayRect(x: width - out, y: 0, width: out, height: height)
            case .top: return OverlayRect(x: 0, y: 0, width: width, height: out)
            case .bottom: return OverlayRect(x: 0, y: height - out, width: width, height: out)
            }
        }
    }

    /// The union of every mark's bounds; `nil` for an empty frame.
    static func bounds(of frame: OverlayFrame, width: Double, height: Double) -> OverlayRect? {
        frame.marks.map { bounds(of: $0, width: width, height: height) }.reduce(nil) { $0?.union($1) ?? $1 }
    }

    static func glowWidth(_ i: EdgeIndicator) -> Double { 8 + 14 * min(1, max(0, i.reach)) }

    // MARK: Drawing

    /// Whether the frame's first mark covers the whole output (a dimming): then ``draw(_:on:width:height:)`` sets
    /// every pixel of the clip itself, and the caller need not clear it first.
    static func coversEverything(_ frame: OverlayFrame) -> Bool {
        guard case .dimming? = frame.marks.first else { return false }
        return true
    }

    /// Draws `frame` on `cr`, whose user space is the output's logical pixels, `width` × `height`; a sheet from
    /// `panelPicture` where one is given (the overlay's: painted once, composited each frame), at `scale`.
    func draw(_ frame: OverlayFrame, on cr: OpaquePointer, width: Double, height: Double, panelPicture: PanelPicture? = nil, scale: Int = 1) {
        var pictured = false
        for (index, mark) in frame.marks.enumerated() {
            switch mark {
            case .dimming(let alpha):
                cairo_set_source_rgba(cr, 0, 0, 0, alpha)
                if index == 0 {
                    // The lowest mark, over the whole output: it replaces what the buffer held (one pass over the
                    // pixels, a solid fill, instead of clearing them and then blending: a 1920x1080 frame's
                    // painting fell from ~3.4 ms).
                    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
                    cairo_paint(cr)
                    cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
                } else {
                    cairo_rectangle(cr, 0, 0, width, height)
                    cairo_fill(cr)
                }
            case .panel(let p):
                // The picture holds one sheet: a second at once (two presentations on one output) is painted here,
                // rather than both pictures painted again every frame.
                if let panelPicture, !pictured, panelPicture.draw(p, on: cr, width: width, height: height, scale: scale, painter: self) {
                    pictured = true
                    continue
                }
                drawPanel(p, on: cr, width: width, height: height)
            case .indicator(let i):
                drawIndicator(i, on: cr, width: width, height: height)
            }
        }
    }

    private func roundedRectangle(_ cr: OpaquePointer, _ x: Double, _ y: Double, _ w: Double, _ h: Double, _ radius: Double) {
        let r = max(0, min(radius, w / 2, h / 2))
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + w - r, y + r, r, -.pi / 2, 0)
        cairo_arc(cr, x + w - r, y + h - r, r, 0, .pi / 2)
        cairo_arc(cr, x + r, y + h - r, r, .pi / 2, .pi)
        cairo_arc(cr, x + r, y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
    }

    func drawPanel(_ p: OverlayPanel, on cr: OpaquePointer, width: Double, height: Double) {
        let x = p.frame.x * width, y = p.frame.y * height
        let w = p.frame.width * width, h = p.frame.height * height
        drawPanel(p, on: cr, x: x, y: y, w: w, h: h, grabberBelow: Self.grabberBelow(y: y, h: h, height: height))
    }

    /// Whether a panel at `y`, `h` tall, on an output `height` tall shows its grabber and name at its bottom: a
    /// shade that comes down shows its bottom first; a sheet that comes up, its top.
    static func grabberBelow(y: Double, h: Double, height: Double) -> Bool { y + h / 2 < height / 2 }

    /// The panel as a `w` x `h` rectangle at `x`, `y` of `cr`'s user space (the overlay's surface, or the sheet's
    /// own image: PanelPicture), with its shadow 3 below and its hairline half a pixel outside.
    func drawPanel(_ p: OverlayPanel, on cr: OpaquePointer, x: Double, y: Double, w: Double, h: Double, grabberBelow: Bool) {
        guard w > 1, h > 1 else { return }
        let a = p.alpha
        cairo_save(cr)
        // A soft shadow, then the translucent body and a hairline.
        roundedRectangle(cr, x, y + 3, w, h, 22)
        cairo_set_source_rgba(cr, 0, 0, 0, 0.22 * a)
        cairo_fill(cr)
        roundedRectangle(cr, x, y, w, h, 22)
        let body = cairo_pattern_create_linear(0, y, 0, y + h)
        cairo_pattern_add_color_stop_rgba(body, 0, 0.17, 0.17, 0.19, 0.86 * a)
        cairo_pattern_add_color_stop_rgba(body, 1, 0.11, 0.11, 0.13, 0.86 * a)
        cairo_set_source(cr, body)
        cairo_fill_preserve(cr)
        cairo_pattern_destroy(body)
        cairo_set_source_rgba(cr, 1, 1, 1, 0.16 * a)
        cairo_set_line_width(cr, 1)
        cairo_stroke(cr)

        // The grabber and the content sit at the side that faces the middle of the screen (grabberBelow).
        roundedRectangle(cr, x + w / 2 - 20, grabberBelow ? y + h - 14 : y + 9, 40, 5, 2.5)
        cairo_set_source_rgba(cr, 1, 1, 1, 0.5 * a)
        cairo_fill(cr)

        // The scene's name, by the grabber, and nothing else: the sheet says what the gesture brings in, not what
        // is in it.
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(cr, 17)
        cairo_set_source_rgba(cr, 1, 1, 1, 0.92 * a)
        cairo_move_to(cr, x + 24, grabberBelow ? y + h - 30 : y + 44)
        cairo_show_text(cr, p.label.capitalizedFirst)
        cairo_restore(cr)
    }

    func drawIndicator(_ i: EdgeIndicator, on cr: OpaquePointer, width: Double, height: Double) {
        let a = min(1, max(0, i.alpha))
        guard a > 0 else { return }
        let along = min(1, max(0, i.along))
        // Local space: the edge is the y axis, inward is +x, the finger at y = 0.
        let length: Double
        cairo_save(cr)
        switch i.edge {
        case .left:
            cairo_translate(cr, 0, along * height)
            length = height
        case .right:
            cairo_translate(cr, width, along * height)
            cairo_scale(cr, -1, 1)
            length = height
        case .top:
            cairo_translate(cr, along * width, 0)
            cairo_rotate(cr, .pi / 2)
            length = width
        case .bottom:
            cairo_translate(cr, along * width, height)
            cairo_rotate(cr, -.pi / 2)
            length = width
        }
        let d = Self.depth(i, extent: Self.extent(across: i.edge, width: width, height: height))
        let c = min(1, max(0, i.commit))
        let blocked: Bool
        let fingers: Int
        switch i.style {
        case .transition(let n):
            blocked = false
            fingers = n
        case .blocked(let n):
            blocked = true
            fingers = n
        }
        let tint = blocked ? (0.56, 0.56, 0.58) : mix((0.92, 0.92, 0.95), (accent.red, accent.green, accent.blue), c)

        // The glow along the whole edge, like the shadow of a page being pulled.
        let g = Self.glowWidth(i)
        let glow = cairo_pattern_create_linear(0, 0, g, 0)
        let glowAlpha = (blocked ? 0.18 : 0.22 + 0.16 * c) * a * min(1, max(0, i.reach))
        cairo_pattern_add_color_stop_rgba(glow, 0, tint.0, tint.1, tint.2, glowAlpha)
        cairo_pattern_add_color_stop_rgba(glow, 1, tint.0, tint.1, tint.2, 0)
        cairo_set_source(cr, glow)
        cairo_rectangle(cr, 0, -along * length, g, length)
        cairo_fill(cr)
        cairo_pattern_destroy(glow)

        // The bump: longer as it grows, and longer still as it reaches far out, so that it keeps its soft shape; a
        // rubber band's is flatter and longer.
        let w = (blocked ? 1.3 : 1) * Self.halfLength * (0.55 + 0.45 * min(1, d / Self.fullLengthDepth))
            + 0.5 * max(0, d - Self.fullLengthDepth)
        cairo_move_to(cr, 0, -w)
        cairo_curve_to(cr, 0, -w * 0.42, d, -w * 0.40, d, 0)
        cairo_curve_to(cr, d, w * 0.40, 0, w * 0.42, 0, w)
        cairo_close_path(cr)
        cairo_set_source_rgba(cr, 0.07, 0.07, 0.09, 0.46 * a)
        cairo_fill(cr)

        // The knob, emerging from the edge: half hidden at first, whole once the bump is deep enough.
        let r = blocked ? Self.blockedKnobRadius : (fingers > 1 ? Self.multiFingerKnobRadius : Self.knobRadius) * (1 + 0.08 * c)
        let cx = d - r - (blocked ? 2 : 4 - 2 * c)
        cairo_arc(cr, cx + 1, 2, r + 1, 0, 2 * .pi)
        cairo_set_source_rgba(cr, 0, 0, 0, 0.20 * a)
        cairo_fill(cr)
        cairo_arc(cr, cx, 0, r, 0, 2 * .pi)
        cairo_set_source_rgba(cr, tint.0, tint.1, tint.2, 0.96 * a)
        cairo_fill(cr)

        // The glyph: a chevron the way the content moves (a dash when nothing would move), and a dot per finger.
        let ink = blocked ? (0.30, 0.30, 0.32) : mix((0.11, 0.11, 0.12), (1, 1, 1), c)
        cairo_set_source_rgba(cr, ink.0, ink.1, ink.2, a)
        cairo_set_line_width(cr, 3)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        let lift = fingers > 1 ? -5.0 : 0
        if blocked {
            cairo_move_to(cr, cx - 5, lift)
            cairo_line_to(cr, cx + 5, lift)
        } else {
            cairo_move_to(cr, cx - 3, lift - 7)
            cairo_line_to(cr, cx + 4, lift)
            cairo_line_to(cr, cx - 3, lift + 7)
        }
        cairo_stroke(cr)
        if fingers > 1 {
            // A dot per finger in a row under the chevron, readable at scale 1: 5.5 px across, 3 px apart at least.
            let n = min(fingers, 5)
            let spacing = min(Self.dotSpacing, (r * 1.5) / Double(n - 1))
            for k in 0..<n {
                let x = cx + (Double(k) - Double(n - 1) / 2) * spacing
                cairo_new_sub_path(cr)
                cairo_arc(cr, x, 10, Self.dotRadius, 0, 2 * .pi)
            }
            cairo_fill(cr)
        }
        cairo_restore(cr)
    }

    private func mix(_ a: (Double, Double, Double), _ b: (Double, Double, Double), _ f: Double) -> (Double, Double, Double) {
        (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, a.2 + (b.2 - a.2) * f)
    }
}

extension OverlayPainter {
    /// Loads cairo (Sources/CCairo: it is not linked), once; the reason when it cannot be.
    static func loadCairo() throws(WaylandError) {
        var why = [CChar](repeating: 0, count: 512)
        guard edgeswipe_cairo_load(&why, why.count) == 0 else {
            throw WaylandError("the overlay draws with cairo: \(String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) (Debian: libcairo2)")
        }
    }
}

extension String {
    /// `notifications` → `Notifications`, for a scene's label.
    var capitalizedFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}

/// A frame drawn offscreen, into memory: what the painter's tests look at, and write as PNG to be looked at.
public final class OverlayImage {
    public let width: Int
    public let height: Int
    private let surface: OpaquePointer

    /// `frame` drawn on a transparent output of `width` × `height` logical pixels (1 to 8192) at integer `scale`
    /// (1 to 4); an error when cairo cannot be loaded.
    public init(_ frame: OverlayFrame, painter: OverlayPainter = OverlayPainter(), width: Int, height: Int, scale: Int = 1) throws(WaylandError) {
        try OverlayPainter.loadCairo()
        let scale = min(4, max(1, scale))
        self.width = min(8192, max(1, width)) * scale
        self.height = min(8192, max(1, height)) * scale
        let width = self.width / scale, height = self.height / scale
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width * scale), Int32(height * scale))
        if let cr = cairo_create(surface) {
            cairo_scale(cr, Double(scale), Double(scale))
            painter.draw(frame, on: cr, width: Double(width), height: Double(height))
            cairo_destroy(cr)
        }
        cairo_surface_flush(surface)
    }

    deinit { cairo_surface_destroy(surface) }

    /// The pixel at (`x`, `y`) in device pixels: alpha, red, green, blue, 0...255, premultiplied.
    public func pixel(_ x: Int, _ y: Int) -> (a: UInt8, r: UInt8, g: UInt8, b: UInt8) {
        guard x >= 0, y >= 0, x < width, y < height, let data = cairo_image_surface_get_data(surface) else { return (0, 0, 0, 0) }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let v = UnsafeRawPointer(data).load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
        return (UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff))
    }

    /// Writes it as a PNG; `false` when cairo cannot.
    @discardableResult
    public func writePNG(to path: String) -> Bool { cairo_surface_write_to_png(surface, path) == CAIRO_STATUS_SUCCESS }
}
