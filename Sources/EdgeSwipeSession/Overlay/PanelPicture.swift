import CCairo
import EdgeSwipeSessionModel
import EdgeSwipeSystem

/// The presented sheet, painted once into an image of its own and composited into each frame from there.
///
/// Painted in every frame, a sheet is its shadow, a gradient and a hairline over most of the output: a 1920x713
/// sheet took 2.2-2.4 ms to paint per frame on this project's machine (p50, against 0.4 ms for the edge alone), and
/// the frame pacer leaves room for the longest recent painting before every deadline (FramePacer's lead), so every
/// line of such a swipe waited that much longer. A sheet moves and fades while its size, name and grabber side
/// stay: the picture is painted again only when one of those changes, and each frame composites it at a whole
/// pixel (pixman's plain copy-with-blend, no filtering) with the sheet's alpha applied to it as a group.
///
/// (Tried and measured worse, 2026-11-29: the sheet and the dimming on subsurfaces that the compositor moves and
/// stretches (wp_viewporter). On headless sway's pixman renderer the compositor's frame then came 8 ms after the
/// commit instead of 1.6 ms: it filters a surface with a viewport even when it does not scale it.)
final class PanelPicture {
    /// What the image holds: painted again when this changes.
    struct Key: Equatable {
        var pixelWidth: Int
        var pixelHeight: Int
        var scale: Int
        var label: String
        var grabberBelow: Bool
    }
    /// The image, in memory of its own: malloc'd, a sheet's megabytes stayed in the session's heap after it went
    /// (glibc raises its mmap threshold to the size of a freed mapping), 5.4 MB more at rest.
    private final class Image {
        /// Declared before the memory: cairo lets go of its surface before the memory is unmapped.
        let cairo: CairoSurface
        let memory: SharedMemory
        init(cairo: CairoSurface, memory: SharedMemory) {
            self.cairo = cairo
            self.memory = memory
        }
    }
    /// The picture held, and what it holds.
    private var held: (key: Key, image: Image)?
    /// Times the picture was painted (for the tests: moving and fading do not paint it again).
    private(set) var paintings = 0
    /// How long the paintings since the last ``takePaintingUS()`` took (making the image included).
    private var paintingUS: UInt64 = 0
    /// Room around the sheet in its image, in logical pixels: its shadow (3 below) and its hairline.
    static let pad = 4

    /// Draws `panel` on `cr`, whose user space is the output's logical pixels (`width` x `height`, at `scale`),
    /// from the picture, painted first if it changed. False where this does not hold the panel (a sheet larger
    /// than the output by a quarter or far off it, a number that is not one, no image to be had): the painter then
    /// paints it directly, as it does the numbers a hostile stream sends.
    func draw(_ panel: OverlayPanel, on cr: OpaquePointer, width: Double, height: Double, scale: Int, painter: OverlayPainter) -> Bool {
        let x = panel.frame.x * width, y = panel.frame.y * height, w = panel.frame.width * width, h = panel.frame.height * height
        // Refused before any conversion: the stream's numbers are the daemon's (or a hostile socket's).
        guard width >= 1, height >= 1, (1...8).contains(scale), x.isFinite, y.isFinite, w > 1, h > 1, w <= 1.25 * width,
              h <= 1.25 * height, abs(x) <= 4 * width, abs(y) <= 4 * height
        else { return false }
        let alpha = min(1, max(0, panel.alpha.isNaN ? 0 : panel.alpha))
        guard alpha > 0 else { return true }
        let pad = Self.pad
        let logicalW = Int(w.rounded(.up)) + 2 * pad, logicalH = Int(h.rounded(.up)) + 2 * pad
        let key = Key(
            pixelWidth: logicalW * scale, pixelHeight: logicalH * scale, scale: scale, label: panel.label,
            grabberBelow: OverlayPainter.grabberBelow(y: y, h: h, height: height))
        if held?.key != key {
            let began = MonotonicClock.now().microseconds
            defer {
                let ended = MonotonicClock.now().microseconds
                paintingUS += ended - min(ended, began)
            }
            held = nil
            let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(key.pixelWidth)))
            guard stride > 0, let memory = try? SharedMemory(name: "edgeswipe-panel", byteCount: stride * key.pixelHeight),
                  let surface = cairo_image_surface_create_for_data(
                      memory.bytes.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32, Int32(key.pixelWidth), Int32(key.pixelHeight),
                      Int32(stride))
            else { return false }
            let made = Image(cairo: CairoSurface(surface), memory: memory)
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let pcr = cairo_create(surface) else { return false }
            cairo_scale(pcr, Double(scale), Double(scale))
            var opaque = panel
            opaque.alpha = 1
            painter.drawPanel(opaque, on: pcr, x: Double(pad), y: Double(pad), w: w, h: h, grabberBelow: key.grabberBelow)
            cairo_destroy(pcr)
            cairo_surface_flush(surface)
            // Its user space is logical pixels too: placed at a whole logical pixel, it lands on whole device pixels.
            cairo_surface_set_device_scale(surface, Double(scale), Double(scale))
            held = (key, made)
            paintings += 1
        }
        guard let image = held?.image else { return false }
        cairo_save(cr)
        cairo_set_source_surface(cr, image.cairo.pointer, (x.rounded(.down) - Double(pad)), (y.rounded(.down) - Double(pad)))
        if alpha >= 1 { cairo_paint(cr) } else { cairo_paint_with_alpha(cr, alpha) }
        cairo_restore(cr)
        return true
    }

    /// How long the picture's paintings since the last call took: a frame's painting less this is what frames
    /// that move the sheet cost (FramePacer's lead).
    func takePaintingUS() -> UInt64 {
        defer { paintingUS = 0 }
        return paintingUS
    }

    /// Lets go of the image (megabytes for a large sheet) once no frame shows a sheet.
    func forget() { held = nil }
}
