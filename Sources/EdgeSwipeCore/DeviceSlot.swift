extension Engine {
    /// Everything the engine keeps for one device: what it is, its machines, and what its touch sequence's
    /// gesture is doing (``GesturePhase``).
    struct DeviceSlot: Sendable {
        var device: TouchDevice
        /// The device's size as the user sees it, real or assumed.
        var size: MillimeterSize
        var settings: DeviceKindSettings
        var recognizer: ScreenEdgePanRecognizer
        /// Multi-finger swipes: the recognizer, and the detector that feeds it from frames (or, on a live
        /// touchpad whose swipes come from libinput, only follows the fingers for the centroid).
        var swipe: SwipeRecognizer
        var detector: MultiFingerDetector
        /// The edge gesture or the swipe that owns the sequence: one at a time, so they share one phase.
        var gesture: GesturePhase = .idle
        /// A swipe the source began that this device's touch sequence does not take (an edge gesture owns the
        /// sequence, or no binding wants its finger count): its updates and end are dropped. The source's, from
        /// its begin to its end, whatever the sequence's gesture does meanwhile.
        var ignoringSwipe = false
    }

    /// What a device's gesture is doing; what each phase owns lives in its case.
    enum GesturePhase: Sendable {
        /// Nothing: no gesture, or one that drives nothing (its transition ended under it).
        case idle
        /// The sequence's first touch (or its swipe) is catching the run-out of a transition this trigger drove,
        /// between its start and the gesture's beginning.
        case catching(GestureTrigger)
        /// The gesture drives a transition.
        case driving(Drive)
        /// The gesture began where no binding can run now: it shows its rubber band, measured against the
        /// reference of the first binding it would have run.
        case blocked(GestureReference)
    }

    /// A gesture driving a transition: the percent is `base` plus its travel over `reference`, and on release
    /// `decision` says which way the transition runs out.
    struct Drive: Sendable {
        var transition: TransitionID
        var reference: GestureReference
        /// The percent the gesture's travel is added to: 0, or where the run-out it caught was.
        var base: Percent
        var decision: ReleaseDecision
    }
}
