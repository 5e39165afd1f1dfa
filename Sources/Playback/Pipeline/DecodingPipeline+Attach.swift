import Foundation

/// Handing an output from one partition's pipeline to another's (`moveoutput`): the devices
/// are shared, and each plays in the one pipeline that holds it.
extension DecodingPipeline {
    /// How long ``detachOutput(_:)`` waits for the output thread to finish the write it is in;
    /// a chunk plays in a fraction of this, so only a device that hangs runs into it.
    static let detachTimeout: TimeInterval = 5

    /// Whether this pipeline holds output `index`.
    public func holdsOutput(_ index: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return attached.indices.contains(index) && attached[index]
    }

    /// Takes output `index` out of this pipeline and waits until its thread has closed the
    /// device, so that another pipeline may open it. The output stays listed as a stand-in,
    /// disabled (MPD's dummy).
    ///
    /// The wait blocks the calling thread for up to ``detachTimeout`` (a device write that
    /// hangs), so the caller must not be an event loop: the server calls it on its queue of
    /// partition changes (`PartitionSet` in Sources/Server/Partitions/PartitionSet.swift). It
    /// waits on the lock's condition, which releases the lock, so the audio threads and
    /// `status` go on meanwhile.
    /// - Returns: whether it was enabled; `nil` when this pipeline does not hold it, or when
    ///   its thread did not let go in time (then the pipeline keeps it).
    public func detachOutput(_ index: Int) -> Bool? {
        lock.lock()
        defer { lock.unlock() }
        guard attached.indices.contains(index), attached[index] else { return nil }
        let wasEnabled = enabled[index]
        attached[index] = false
        if let handed = handedReaders[index] {
            // Its thread never took the reader, so it never opened the device either.
            buffer.removeReader(handed)
            handedReaders[index] = nil
            holding[index] = false
        }
        chooseReference()
        lock.broadcast()
        let deadline = Date(timeIntervalSinceNow: Self.detachTimeout)
        while holding[index] && !shutdown {
            if !lock.wait(until: deadline) && holding[index] {
                attached[index] = true
                chooseReference()
                lock.broadcast()
                return nil
            }
        }
        enabled[index] = false
        outputErrors[index] = nil
        failedOutputs.remove(index)
        return wasEnabled
    }

    /// Gives output `index` to this pipeline, enabled or not; its thread opens the device with
    /// the next chunk written from now on. - Precondition: no other pipeline holds it (``detachOutput(_:)``).
    public func attachOutput(_ index: Int, enabled on: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard attached.indices.contains(index) else { return }
        attached[index] = true
        enabled[index] = on
        failedOutputs.remove(index)
        if on && !holding[index] {
            // Registered now rather than when the thread wakes: what the decoder writes from
            // here on reaches this output, however late its thread runs.
            handedReaders[index] = buffer.addReader()
            holding[index] = handedReaders[index] != nil
        }
        chooseReference()
        lock.broadcast()
    }

    /// With no output enabled in this pipeline (all disabled, or a partition that holds none),
    /// `play` pauses on the song with MPD's error, as MPD's player does when it finds no
    /// output to open. Called with the lock held.
    func pauseWithoutOutputs() {
        guard !outputs.indices.contains(where: { enabled[$0] && attached[$0] }) else { return }
        pauseForOutputs("All audio outputs are disabled", generation: generation)
    }

    /// Pauses on the song because no output can play it, as MPD's player does, and tells the
    /// player why. Called with the lock held.
    func pauseForOutputs(_ message: String, generation: UInt64) {
        paused = true
        outputsFailure = message
        post(.outputsFailed(message), generation: generation)
    }
}
