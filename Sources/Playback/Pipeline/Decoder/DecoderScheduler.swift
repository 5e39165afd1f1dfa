/// What the decoder thread does next, as a state machine without threads: the controls
/// (`play`, `stop`, `enqueue`) and the decoder's own results come in as events, and
/// ``nextStep(hasSource:shutdown:borderPause:crossfadeEnabled:buffer:)`` says what to do.
///
/// It lives in ``PipelineTransport`` and is only touched under the transport's lock; it never
/// waits, so it is unit-tested by calling it. The decoder thread turns ``Step/wait`` into a
/// wait on the transport's condition, and performs the other steps outside the lock.
///
/// The song border is where the decoder went on into the next song (gapless, or the first
/// mixed chunk of a crossfade). Until the reference output gets there, a change of the next
/// song can still take the chunks back (``enqueue(_:buffer:)``).
struct DecoderScheduler {
    /// What the decoder does next.
    enum Step: Equatable {
        /// Open `track` at `offset` seconds, replacing any song; `freshGain`: restart the
        /// replay gain dither (the first play after a stop).
        case open(PipelineTrack, offset: Double, freshGain: Bool)
        /// Back to the outgoing song of an undone crossfade, at `offset`.
        case resume(PipelineTrack, offset: Double)
        /// Decode a chunk into the buffer's free chunk `index`. `upcoming`: the song that may
        /// fade in, when it is known and no border pause is due; `awaitingNext`: the player has
        /// not said yet what follows (and no border pause is due).
        case decode(index: Int, upcoming: PipelineTrack?, awaitingNext: Bool)
        /// The current song ended: open the next one and go on without a gap.
        case openNext(PipelineTrack)
        /// Nothing follows: write the end-of-stream chunk.
        case end
        /// Close the song (after `stop`).
        case close
        /// The pipeline shuts down.
        case quit
        /// Nothing to do until the controls or the outputs change something.
        case wait
    }

    /// Where the decoder crossed into the next song: the chunk and the song's token.
    struct Border: Equatable {
        var index: Int
        var token: Int
    }

    /// Where a crossfade began: the first mixed chunk, the outgoing song and its position.
    struct FadeStart: Equatable {
        var index: Int
        var outgoing: PipelineTrack
        var time: Double
    }

    /// How many free chunks let a held decoder go on: an eighth of the buffer (6 s of CD audio
    /// with the default 8 MiB), so a full buffer stays nearly full and the decoder wakes a few
    /// times a minute instead of 43 times a second.
    let refillChunks: Int

    /// A song to open, from `play`.
    private(set) var request: (track: PipelineTrack, offset: Double)?
    /// `stop` came: close the song.
    private var stopRequested = false
    /// The song that follows, once the player said (``nextKnown``); `nil` with `nextKnown`
    /// means none follows.
    private(set) var next: PipelineTrack?
    /// Whether the player has said what follows the current song.
    private(set) var nextKnown = false
    /// Where the decoder crossed into the next song, until the reference output gets there.
    private(set) var border: Border?
    /// Where the decoder began mixing the next song into the current one, until another song
    /// change: a change of the next song can still undo the fade.
    private(set) var fadeStart: FadeStart?
    /// The current song ended; the decoder waits to hear what follows.
    private(set) var waitingForNext = false
    /// The token of the next song while the decoder opens it (an ``Step/openNext(_:)`` under
    /// way): a stream may take up to its timeout to answer.
    private(set) var openingNext: Int?
    /// The buffer was full: the decoder waits for ``refillChunks`` free chunks, so that it
    /// works in batches.
    private(set) var held = false
    /// The decoder waits for nothing but room in the buffer: an output that frees enough of
    /// it wakes it (``wantsRoomWakeUp(_:)``); other outputs' progress wakes nobody.
    private var needsRoom = false
    /// Within a fade's length of the song's end, the decoder waits to hear which song follows
    /// (the player says so right after `play`, and once the outputs reach a song change), so
    /// that it does not decode past where the fade must begin.
    private(set) var fadeAwaitsNext = false
    /// An undone fade: the decoder goes back to the outgoing song, at this offset.
    private(set) var resumeOutgoing: (track: PipelineTrack, offset: Double)?
    /// Whether the next `play` starts with fresh replay gain dither: true after `stop`, when
    /// MPD closes its outputs and with them the replay gain filter; a seek or a `play` while
    /// playing keeps MPD's outputs open, so the dither runs on.
    private var replayGainReset = true
    /// The format the decoder wrote last, which the end-of-stream chunk carries.
    var lastFormat: PCMFormat?

    /// Creates the scheduler for a buffer of `capacity` chunks.
    init(bufferCapacity capacity: Int) {
        refillChunks = max(1, capacity / 8)
    }

    // MARK: Events from the controls

    /// `play`: open `track` at `offset`, forgetting the next song, any border and any fade.
    mutating func play(_ track: PipelineTrack, offset: Double) {
        request = (track, offset)
        forgetNext()
        lastFormat = nil
    }

    /// `stop`: close the song; the next `play` restarts the replay gain dither.
    mutating func stop() {
        request = nil
        stopRequested = true
        forgetNext()
        replayGainReset = true
    }

    private mutating func forgetNext() {
        openingNext = nil
        next = nil
        nextKnown = false
        border = nil
        fadeStart = nil
        resumeOutgoing = nil
        fadeAwaitsNext = false
    }

    /// The player says which song follows (`nil`: none). If the decoder already went on into
    /// another one, the chunks no output has reached are taken back from `buffer`.
    /// - Returns: whether the decoder is opening another song as the next one, which is no
    ///   longer wanted: the caller interrupts the open (a stream that does not answer would
    ///   otherwise hold the decoder for its whole timeout, and the new next song with it).
    @discardableResult
    mutating func enqueue(_ track: PipelineTrack?, buffer: PCMBuffer) -> Bool {
        if let border, border.token != track?.token, fadeStart != nil {
            undoFade(buffer: buffer)
        } else if let border, border.token != track?.token {
            // The decoder already went on into a song that is no longer next: take it back,
            // unless the outputs are already there (then `started` tells the player).
            if buffer.truncate(to: border.index) {
                self.border = nil
                waitingForNext = true
            }
        }
        next = track
        nextKnown = true
        return openingNext.map { $0 != track?.token } ?? false
    }

    /// The next song changed while a fade into the old one is still (partly) in the buffer:
    /// takes back what no output has reached. If that includes mixed chunks, the decoder goes
    /// back to the outgoing song at the first of them; otherwise it waits for the new next
    /// song, as after a gapless border.
    private mutating func undoFade(buffer: PCMBuffer) {
        guard let start = fadeStart else { return }
        let first = max(start.index, buffer.furthestReader + 1)
        var resumeAt: Double?
        if first < buffer.written {
            let info = buffer.info(at: first)
            if info.token == start.outgoing.token { resumeAt = info.time }
            guard buffer.truncate(to: first) else { return }
        } else if buffer.written > start.index {
            // Everything mixed so far is being played: go back right after it.
            let last = buffer.info(at: buffer.written - 1)
            if last.token == start.outgoing.token {
                resumeAt = last.time + Double(last.length) / Double(last.format.bytesPerSecond)
            }
        } else {
            resumeAt = start.time  // the first mixed chunk is still being decoded
        }
        border = nil
        fadeStart = nil
        if let resumeAt {
            resumeOutgoing = (start.outgoing, resumeAt)
        } else {
            waitingForNext = true
        }
    }

    // MARK: Events from the outputs

    /// The reference output reached the song `token`: its border is behind.
    mutating func reachedSong(_ token: Int) {
        if border?.token == token { border = nil }
    }

    /// Whether an output that freed chunks should wake the decoder: it waits for room and
    /// enough is free for its next batch.
    func wantsRoomWakeUp(_ buffer: PCMBuffer) -> Bool {
        needsRoom && buffer.freeChunks >= refillChunks
    }

    // MARK: Events from the decoder

    /// The outgoing song of an undone fade could not be taken up again: go on as at its end.
    mutating func outgoingLost() { waitingForNext = true }

    /// The decoder opened the next song and writes it from chunk `index` on.
    mutating func enteredNext(_ token: Int, at index: Int) {
        openingNext = nil
        border = Border(index: index, token: token)
        fadeStart = nil
        next = nil
        nextKnown = false
        waitingForNext = false
    }

    /// The next song cannot be opened: the stream ends after this song. The decoder keeps
    /// waiting for the next song, so that with none known it takes the `.end` step: the
    /// outputs then play out what they hold and report `finished`.
    mutating func nextFailed() {
        openingNext = nil
        next = nil
        nextKnown = true
    }

    /// The decoder opened `token` as the next song (or failed to), but the player has named
    /// another since (``enqueue(_:buffer:)``): that one is opened instead, at the next step.
    /// - Returns: false when `token` is still the next song, and the caller goes on as usual.
    mutating func nextChanged(whileOpening token: Int) -> Bool {
        openingNext = nil
        return !(nextKnown && next?.token == token)
    }

    /// The song gave no more audio (its end, or an error).
    mutating func songEnded() { waitingForNext = true }

    /// Near its end, the song may fade: the decoder waits to hear what follows.
    mutating func awaitNextForFade() { fadeAwaitsNext = true }

    /// Starts a fade into `incoming` at chunk `index`, from `outgoing` at `time`, if that song
    /// is still the next one. - Returns: whether it started.
    mutating func beginFade(at index: Int, outgoing: PipelineTrack, time: Double, incoming: Int) -> Bool {
        guard next?.token == incoming else { return false }
        border = Border(index: index, token: incoming)
        fadeStart = FadeStart(index: index, outgoing: outgoing, time: time)
        next = nil
        nextKnown = false
        return true
    }

    /// Whether a mixed chunk of `outgoing` still belongs to the fade under way (a change of
    /// the next song may have undone it).
    func isFading(from outgoing: Int) -> Bool { fadeStart?.outgoing.token == outgoing }

    /// The incoming song of a fade broke off: no fade; the decoder tries it again at the end.
    mutating func fadeBrokeOff(_ incoming: PipelineTrack) {
        border = nil
        fadeStart = nil
        next = incoming
        nextKnown = true
    }

    // MARK: The decision

    /// Decides the decoder's next step.
    /// - Parameters:
    ///   - hasSource: whether the decoder has a song open.
    ///   - shutdown: whether the pipeline shuts down.
    ///   - borderPause: whether the pipeline pauses at the next song change (single mode).
    ///   - crossfadeEnabled: whether songs crossfade.
    mutating func nextStep(
        hasSource: Bool, shutdown: Bool, borderPause: Bool, crossfadeEnabled: Bool, buffer: PCMBuffer
    ) -> Step {
        needsRoom = false
        if shutdown { return .quit }
        if let wanted = request {
            request = nil
            stopRequested = false
            waitingForNext = false
            let freshGain = replayGainReset
            replayGainReset = false
            return .open(wanted.track, offset: wanted.offset, freshGain: freshGain)
        }
        if let resume = resumeOutgoing {
            resumeOutgoing = nil
            stopRequested = false
            waitingForNext = false
            return .resume(resume.track, offset: resume.offset)
        }
        if stopRequested {
            stopRequested = false
            if hasSource { return .close }
        }
        if waitingForNext && border == nil {
            if let upcoming = next {
                openingNext = upcoming.token
                return .openNext(upcoming)
            }
            if nextKnown && buffer.hasRoom {
                waitingForNext = false
                return .end
            }
        }
        if fadeAwaitsNext && (nextKnown || borderPause || !crossfadeEnabled) { fadeAwaitsNext = false }
        let decoding = hasSource && !waitingForNext && !fadeAwaitsNext
        if decoding && buffer.hasRoom && (!held || buffer.freeChunks >= refillChunks) {
            held = false
            return .decode(
                index: buffer.written, upcoming: borderPause || !nextKnown ? nil : next,
                awaitingNext: !nextKnown && !borderPause)
        }
        if hasSource && !waitingForNext && !buffer.hasRoom {
            // Full: decode again in one batch once `refillChunks` are free, rather than one
            // chunk each time an output plays one (a wake-up per chunk, 43 a second).
            held = true
        }
        // Whether only room in the buffer lets the decoder go on: the outputs wake it then.
        needsRoom = decoding || (waitingForNext && border == nil && next == nil && nextKnown)
        return .wait
    }
}
