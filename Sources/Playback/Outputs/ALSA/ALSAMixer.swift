import CALSA
import Platform
import Synchronization

/// The ALSA output's hardware volume: one simple-mixer element, as MPD's `AlsaMixerPlugin`.
///
/// - `mixer_device`: the control device. MPD's default is `default`; Tonearm's is the card of
///   the output's `device` when that names one (`hw:1,0` → `hw:1`, `plughw:CARD=DAC` →
///   `hw:CARD=DAC`), so an output on a second card does not turn the first card's volume, and
///   `default` otherwise.
/// - `mixer_control`: the element, matched without regard to case. MPD's default is `PCM`;
///   when none is configured Tonearm takes `PCM` and falls back to `Master`, since many cards
///   (and most HDMI and USB ones) have no `PCM` element.
/// - `mixer_index`: the element's index (default 0).
///
/// Volume is mapped between percent and the element as MPD does (through alsamixer's
/// `volume_mapping.c`, see ``ALSAVolumeMapping``). The mixer is opened on first use and
/// reopened after a failure (a USB card unplugged and plugged back). It is independent of the
/// PCM, so the volume can be read and set while the output is closed, and it is locked
/// internally because volume commands come from the partition while the output thread plays.
final class ALSAMixer: HardwareMixer {
    /// The control device (`mixer_device`).
    let device: String
    /// The configured element name, or nil for `PCM` then `Master`.
    let control: String?
    /// The element index (`mixer_index`).
    let index: Int

    /// The open mixer, guarded by `state`.
    private struct Handle {
        /// The `snd_mixer_t`, nil until opened.
        var mixer: OpaquePointer?
        /// The volume element, nil until found.
        var element: OpaquePointer?
        /// MPD's rounding workaround: the percent last set, and what it read back as, so that
        /// `setvol 51` on a coarse control does not read back as 50.
        var desired = -1
        /// See `desired`.
        var resulting = -1
    }

    private let state = Mutex(Handle())
    /// Who hears of volume changes (``onChange(_:)``), and the volume they last heard.
    private let listeners = Mutex((calls: [@Sendable (Int) -> Void](), last: -1))
    /// Signalled when the mixer goes away: its ``ALSAMixerWatcher`` stops waiting then.
    private let released = WakeSignal()

    /// A mixer for `control` (nil: `PCM`, then `Master`) on `device`.
    init(device: String, control: String?, index: Int) {
        self.device = device
        self.control = control
        self.index = index
    }

    /// Closes the mixer handle with the mixer, and ends its watcher's wait.
    deinit {
        state.withLock { Self.close(&$0) }
        released.signal()
    }

    /// The control device for a PCM name: the PCM's card for `hw:` and `plughw:` names,
    /// `default` for anything else.
    static func defaultDevice(forPCM pcm: String) -> String {
        for prefix in ["hw:", "plughw:"] where pcm.hasPrefix(prefix) {
            let card = pcm.dropFirst(prefix.count).split(separator: ",", maxSplits: 1).first ?? ""
            guard !card.isEmpty else { break }
            return "hw:\(card)"
        }
        return "default"
    }

    /// Reads the front-left channel as MPD does, answering the percent last set while the
    /// control still sits where that put it.
    func volume() throws(OutputError) -> Int {
        try state.withLock { (handle: inout Handle) throws(OutputError) -> Int in
            let element = try open(&handle)
            let err = snd_mixer_handle_events(handle.mixer)
            if err < 0 {
                Self.close(&handle)
                throw .alsa("snd_mixer_handle_events() failed", err)
            }
            var volume = ALSAVolumeMapping.percent(Self.normalizedVolume(element))
            if handle.resulting >= 0, volume == handle.resulting {
                volume = handle.desired
            } else {
                handle.desired = -1
                handle.resulting = -1
            }
            return volume
        }
    }

    /// Sets every channel, rounding up so that a coarse control never ends below the request.
    func setVolume(_ volume: Int) throws(OutputError) {
        let clamped = min(max(volume, 0), 100)
        try state.withLock { (handle: inout Handle) throws(OutputError) in
            let element = try open(&handle)
            let err = Self.setNormalizedVolume(element, Double(clamped) / 100)
            if err < 0 {
                Self.close(&handle)
                throw .alsa("failed to set ALSA volume", err)
            }
            handle.desired = clamped
            handle.resulting = ALSAVolumeMapping.percent(Self.normalizedVolume(element))
        }
    }

    /// Adds a listener; the first starts the thread that waits for the control's events
    /// (``ALSAMixerWatcher``).
    func onChange(_ listener: @escaping @Sendable (Int) -> Void) {
        let first = listeners.withLock { listeners in
            listeners.calls.append(listener)
            return listeners.calls.count == 1
        }
        if first { ALSAMixerWatcher.start(device: device, mixer: self, released: released) }
    }

    /// Tells the listeners the volume of `element` (the watcher's own handle on the control,
    /// which has just taken the event), if it is not what they heard last. A level that is
    /// what the last `setvol` left counts as the level asked for, as `volume()` answers, so
    /// that a control that rounded it is not reported as a change.
    func reportVolume(of element: OpaquePointer) {
        let read = ALSAVolumeMapping.percent(Self.normalizedVolume(element))
        let volume = state.withLock { handle in
            handle.resulting >= 0 && read == handle.resulting ? handle.desired : read
        }
        let calls = listeners.withLock { listeners -> [@Sendable (Int) -> Void] in
            guard listeners.last != volume else { return [] }
            listeners.last = volume
            return listeners.calls
        }
        for call in calls { call(volume) }
    }

    /// Releases the mixer handle; the next call opens it again.
    func close() {
        state.withLock { Self.close(&$0) }
    }

    /// Opens the mixer and finds the element, unless that is done (MPD's `AlsaMixer::Open`).
    private func open(_ handle: inout Handle) throws(OutputError) -> OpaquePointer {
        if let element = handle.element { return element }
        let mixer = try Self.openMixer(device: device)
        handle.mixer = mixer
        guard let element = element(in: mixer) else {
            Self.close(&handle)
            throw OutputError("no such mixer control: \(control ?? "PCM")")
        }
        handle.element = element
        handle.desired = -1
        handle.resulting = -1
        return element
    }

    /// The configured element in `mixer`: `mixer_control`, or `PCM`, then `Master`.
    func element(in mixer: OpaquePointer) -> OpaquePointer? {
        let names = control.map { [$0] } ?? ["PCM", "Master"]
        return names.lazy.compactMap({ Self.element(named: $0, index: self.index, in: mixer) }).first
    }

    /// A simple-mixer handle on `device` with its elements loaded.
    static func openMixer(device: String) throws(OutputError) -> OpaquePointer {
        tonearm_alsa_silence_errors()
        var opened: OpaquePointer?
        var err = snd_mixer_open(&opened, 0)
        guard err >= 0, let mixer = opened else { throw .alsa("snd_mixer_open() failed", err) }
        // MPD's messages, step by step.
        var failed = "failed to attach to \(device)"
        err = snd_mixer_attach(mixer, device)
        if err >= 0 {
            failed = "snd_mixer_selem_register() failed"
            err = snd_mixer_selem_register(mixer, nil, nil)
        }
        if err >= 0 {
            failed = "snd_mixer_load() failed"
            err = snd_mixer_load(mixer)
        }
        if err < 0 {
            snd_mixer_close(mixer)
            throw .alsa(failed, err)
        }
        return mixer
    }

    private static func close(_ handle: inout Handle) {
        if let mixer = handle.mixer { snd_mixer_close(mixer) }
        handle = Handle()
    }

    /// The simple element called `name` (any case) with `index`.
    private static func element(named name: String, index: Int, in mixer: OpaquePointer) -> OpaquePointer? {
        var element = snd_mixer_first_elem(mixer)
        while let current = element {
            if snd_mixer_elem_get_type(current) == SND_MIXER_ELEM_SIMPLE,
                let elementName = snd_mixer_selem_get_name(current),
                String(cString: elementName).caseInsensitiveEquals(name),
                Int(snd_mixer_selem_get_index(current)) == index
            {
                return current
            }
            element = snd_mixer_elem_next(current)
        }
        return nil
    }

    /// The front-left channel's volume, 0…1 (`get_normalized_playback_volume`).
    private static func normalizedVolume(_ element: OpaquePointer) -> Double {
        var low = 0, high = 0, value = 0
        if snd_mixer_selem_get_playback_dB_range(element, &low, &high) < 0 || low >= high {
            guard snd_mixer_selem_get_playback_volume_range(element, &low, &high) >= 0, low != high,
                snd_mixer_selem_get_playback_volume(element, SND_MIXER_SCHN_FRONT_LEFT, &value) >= 0
            else { return 0 }
            return ALSAVolumeMapping.normalized(raw: value, min: low, max: high)
        }
        guard snd_mixer_selem_get_playback_dB(element, SND_MIXER_SCHN_FRONT_LEFT, &value) >= 0 else { return 0 }
        return ALSAVolumeMapping.normalized(dB: value, min: low, max: high)
    }

    /// Sets every channel to `volume` (0…1), rounding up as MPD asks
    /// (`set_normalized_playback_volume(elem, v, 1)`).
    private static func setNormalizedVolume(_ element: OpaquePointer, _ volume: Double) -> Int32 {
        var low = 0, high = 0
        if snd_mixer_selem_get_playback_dB_range(element, &low, &high) < 0 || low >= high {
            let err = snd_mixer_selem_get_playback_volume_range(element, &low, &high)
            if err < 0 { return err }
            return snd_mixer_selem_set_playback_volume_all(
                element, ALSAVolumeMapping.raw(forNormalized: volume, min: low, max: high))
        }
        return snd_mixer_selem_set_playback_dB_all(
            element, ALSAVolumeMapping.dB(forNormalized: volume, min: low, max: high), 1)
    }
}

/// Control-name matching for the mixer.
extension String {
    /// ASCII case-insensitive equality, as MPD's `StringEqualsCaseASCII` matches control names.
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count
            && zip(utf8, other.utf8).allSatisfy { a, b in
                (a >= 65 && a <= 90 ? a + 32 : a) == (b >= 65 && b <= 90 ? b + 32 : b)
            }
    }
}
