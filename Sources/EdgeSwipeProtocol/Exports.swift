// The messages are written in the vocabulary's words (a `gesture` carries an `Edge`, a `transition` a
// `TransitionPhase`), so whoever imports the protocol has them too; the engine stays out of it.
@_exported public import EdgeSwipeVocabulary
