/// What starts a gesture: an edge, or a multi-finger swipe in a direction. A binding is keyed by one, a gesture
/// reports one, and a gesture-driven transition remembers the one that drove it (to be caught by the same).
public enum GestureTrigger: Hashable, Sendable, Codable {
    case edge(Edge)
    case swipe(SwipeDirection)

    public var kind: GestureKind {
        switch self {
        case .edge: .edge
        case .swipe: .swipe
        }
    }

    /// The edge of an edge gesture; `nil` for a swipe.
    public var edge: Edge? {
        switch self {
        case .edge(let e): e
        case .swipe: nil
        }
    }

    /// The direction of a swipe; `nil` for an edge gesture.
    public var direction: SwipeDirection? {
        switch self {
        case .edge: nil
        case .swipe(let d): d
        }
    }

    /// Which way the fingers move: inward from an edge, or the swipe's direction. The scenes of the transition
    /// the gesture drives move the same way.
    public var motion: SwipeDirection {
        switch self {
        case .edge(let e): e.inwardDirection
        case .swipe(let d): d
        }
    }
}

/// Where the swipe path of a touchpad comes from.
public enum TouchpadSwipeSource: Hashable, Sendable {
    /// libinput's own swipe gestures (`LIBINPUT_EVENT_GESTURE_SWIPE_*`), handed in through
    /// ``Engine/handleSwipe(_:on:at:into:)``: live touchpads. The engine's detector does not run on their frames.
    case libinputGestures
    /// The engine's multi-finger detector over the touchpad's frames, emulating libinput's swipes: recordings,
    /// which carry raw evdev events and no gestures.
    case touchFrames
}

/// One event of a swipe gesture as libinput reports it (`LIBINPUT_EVENT_GESTURE_SWIPE_BEGIN/UPDATE/END`), or as
/// the multi-finger detector emulates it. Deltas are the centroid's, in millimetres, in the user's orientation.
public enum SwipeGestureInput: Hashable, Sendable {
    case begin(fingers: Int)
    case update(delta: MillimeterVector)
    /// `cancelled` is libinput's flag: a finger was added or lifted mid-swipe.
    case end(cancelled: Bool)
}

/// Tuning for the multi-finger swipes of one kind of device.
public struct SwipeSettings: Hashable, Sendable, Codable {
    /// How far the centroid must travel before the swipe locks to its dominant axis: GNOME Shell's
    /// `DRAG_THRESHOLD_DISTANCE` (16 units of libinput's unaccelerated deltas, `js/ui/swipeTracker.js`;
    /// libadwaita's `src/adw-swipe-tracker.c` uses the same), 1.52 mm at libinput's 10.52 units per mm.
    public var lockDistance: Millimeters
    /// What 100 % is when the binding names no reference: on touchpads niri's `WORKSPACE_GESTURE_MOVEMENT`, 300
    /// unaccelerated units (28.5 mm) on both axes, which is GNOME Shell's `TOUCHPAD_BASE_HEIGHT` too (its
    /// `TOUCHPAD_BASE_WIDTH` is 400, 38 mm: see ARCHITECTURE.md for why 300); on screens the screen's extent
    /// (capped at 250 mm), so the scene follows the fingers one to one.
    public var horizontalReference: PercentReference
    public var verticalReference: PercentReference
    /// How long after the first finger lands a finger still counts toward the swipe (the detector, on screens
    /// and in replays): libinput's `DEFAULT_GESTURE_SWIPE_TIMEOUT`, 150 ms.
    public var fingerWindow: Microseconds
    /// How long a changed finger count must last before a running swipe is cancelled (touchpads, emulating
    /// libinput: `DEFAULT_GESTURE_SWITCH_TIMEOUT`, 100 ms); `nil` keeps the count of the start (screens).
    public var switchTimeout: Microseconds?
    /// The fewest fingers the detector reports: 2 on screens; 3 on touchpads, where libinput makes two fingers
    /// scroll.
    public var minimumFingers: Int
    public var velocityWindow: Microseconds

    public init(
        lockDistance: Millimeters, horizontalReference: PercentReference, verticalReference: PercentReference,
        fingerWindow: Microseconds, switchTimeout: Microseconds?, minimumFingers: Int,
        velocityWindow: Microseconds = .milliseconds(150)
    ) {
        self.lockDistance = lockDistance
        self.horizontalReference = horizontalReference
        self.verticalReference = verticalReference
        self.fingerWindow = fingerWindow
        self.switchTimeout = switchTimeout
        self.minimumFingers = minimumFingers
        self.velocityWindow = velocityWindow
    }

    /// libinput 1.22's unaccelerated touchpad deltas per millimetre of finger travel: normalized to 1000 dpi
    /// (`DEFAULT_MOUSE_DPI`, `src/libinput-util.h`), times `baseline` 0.9 and `TP_MAGIC_SLOWDOWN` 0.2968
    /// (`src/filter-touchpad.c`, `touchpad_constant_filter`; `src/filter.h`).
    public static let libinputUnitsPerMillimeter = 1000 / 25.4 * 0.9 * 0.2968

    public static let touchpad = SwipeSettings(
        lockDistance: Millimeters(16 / libinputUnitsPerMillimeter),
        horizontalReference: .millimeters(300 / libinputUnitsPerMillimeter),
        verticalReference: .millimeters(300 / libinputUnitsPerMillimeter),
        fingerWindow: .milliseconds(150), switchTimeout: .milliseconds(100), minimumFingers: 3)

    public static let touchscreen = SwipeSettings(
        lockDistance: Millimeters(16 / libinputUnitsPerMillimeter),
        horizontalReference: .touchscreenDefault, verticalReference: .touchscreenDefault,
        fingerWindow: .milliseconds(150), switchTimeout: nil, minimumFingers: 2)

    public static func defaults(for kind: DeviceKind) -> SwipeSettings {
        switch kind {
        case .touchscreen: .touchscreen
        case .touchpad: .touchpad
        }
    }

    public func reference(for direction: SwipeDirection) -> PercentReference {
        direction.isHorizontal ? horizontalReference : verticalReference
    }
}

extension PercentReference {
    /// The reference in millimetres along `direction` on `device` (never below 0.1 mm).
    public func millimeters(along direction: SwipeDirection, on device: TouchDevice) -> Double {
        let edge: Edge = direction.isHorizontal ? .left : .top
        let axisMM = (direction.isHorizontal ? device.size.width : device.size.height).value
        let mm = fraction(across: edge, on: device) * axisMM
        return mm.isFinite ? max(0.1, mm) : 60
    }
}
