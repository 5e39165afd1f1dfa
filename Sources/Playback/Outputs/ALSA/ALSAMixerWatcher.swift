import CALSA
import Glibc
import Platform

/// Waits for events on an ALSA mixer's control device and has the mixer report the level after
/// each (MPD's ALSA mixer watches the same descriptors in its event loop).
///
/// It runs on a thread of its own with a handle of its own, so the mixer's lock is never held
/// while it waits, and it reads the level from that handle, which has taken the event: the
/// mixer's handle may not have yet (with ALSA's `pulse` plugin each handle is a connection to
/// the sound server of its own). It holds the mixer only while it reports, and waits on the
/// control's descriptors and on `released`, which the mixer signals when it goes away: an idle
/// server's watcher sleeps until the volume changes (it woke every half second to look for
/// the mixer's end before). A device that cannot be opened (a USB card unplugged) is tried
/// again every two seconds.
enum ALSAMixerWatcher {
    /// Starts watching `device` for `mixer`, until the mixer is released and signals `released`.
    static func start(device: String, mixer: ALSAMixer, released: WakeSignal) {
        NamedThread.start(name: "mixer watcher") { [weak mixer] in
            var handle: OpaquePointer?
            var element: OpaquePointer?
            // The control's descriptors, then `released`'s.
            var descriptors: [pollfd] = []
            while mixer != nil {
                if handle == nil {
                    handle = try? ALSAMixer.openMixer(device: device)
                    element = handle.flatMap { open in mixer?.element(in: open) }
                    guard let open = handle, let element else {
                        if let open = handle { snd_mixer_close(open) }
                        handle = nil
                        var wake = pollfd(fd: released.descriptor, events: Int16(POLLIN), revents: 0)
                        _ = poll(&wake, 1, 2000)
                        continue
                    }
                    descriptors = Self.descriptors(of: open)
                    descriptors.append(pollfd(fd: released.descriptor, events: Int16(POLLIN), revents: 0))
                    mixer?.reportVolume(of: element)
                }
                // Without a `released` descriptor (the kernel refused a pipe), look every half second.
                let ready = poll(&descriptors, nfds_t(descriptors.count), released.descriptor >= 0 ? -1 : 500)
                guard ready > 0, let open = handle, let element else { continue }
                let controls = descriptors.count - 1
                guard descriptors[..<controls].contains(where: { $0.revents != 0 }) else { continue }
                var events: UInt16 = 0
                snd_mixer_poll_descriptors_revents(open, &descriptors, UInt32(controls), &events)
                if events & UInt16(POLLERR | POLLHUP | POLLNVAL) != 0 || snd_mixer_handle_events(open) < 0 {
                    snd_mixer_close(open)
                    handle = nil
                    continue
                }
                mixer?.reportVolume(of: element)
            }
            if let open = handle { snd_mixer_close(open) }
        }
    }

    private static func descriptors(of mixer: OpaquePointer) -> [pollfd] {
        let count = max(0, snd_mixer_poll_descriptors_count(mixer))
        var descriptors = [pollfd](repeating: pollfd(), count: Int(count))
        let filled = snd_mixer_poll_descriptors(mixer, &descriptors, UInt32(count))
        return Array(descriptors.prefix(Int(max(0, filled))))
    }
}
