// The engine's API is written in the vocabulary's words (an `EngineEvent` carries an `Edge`, a `TransitionPhase`,
// a `MonotonicInstant`), so whoever imports the core has them too, as before they moved below it.
@_exported public import EdgeSwipeVocabulary
