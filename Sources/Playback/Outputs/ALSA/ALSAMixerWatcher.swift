import CALSA
import Glibc
import Platform

/// Waits for events on an ALSA mixer's control device and has the mixer report the level after
/// each (MPD's ALSA mixer watches the same descriptors in its event loop).
///
/// It runs on a thread of its own with a handle of its own, so the mixer's lock is never held
/// while it waits, and it reads the level from that handle, which has taken the event: the
/// mixer's handle may not have yet (with ALSA's `pulse` plugin each handle is a connection to
/// the sound server of its own). The wait ends every half second to see whether the mixer is
/// gone, and a device that cannot be opened (a USB card unplugged) is tried again every two
/// seconds.
enum ALSAMixerWatcher {
    /// Starts watching `device` for `mixer`, until the mixer is released.
    static func start(device: String, mixer: ALSAMixer) {
        NamedThread.start(name: "mixer watcher") { [weak mixer] in
            var handle: OpaquePointer?
            var element: OpaquePointer?
            var descriptors: [pollfd] = []
            while let watched = mixer {
                if handle == nil {
                    handle = try? ALSAMixer.openMixer(device: device)
                    element = handle.flatMap { watched.element(in: $0) }
                    guard let open = handle, let element else {
                        if let open = handle { snd_mixer_close(open) }
                        handle = nil
                        usleep(2_000_000)
                        continue
                    }
                    descriptors = Self.descriptors(of: open)
                    watched.reportVolume(of: element)
                }
                let ready = poll(&descriptors, nfds_t(descriptors.count), 500)
                guard ready > 0, let open = handle, let element else { continue }
                var events: UInt16 = 0
                snd_mixer_poll_descriptors_revents(open, &descriptors, UInt32(descriptors.count), &events)
                if events & UInt16(POLLERR | POLLHUP | POLLNVAL) != 0 || snd_mixer_handle_events(open) < 0 {
                    snd_mixer_close(open)
                    handle = nil
                    continue
                }
                watched.reportVolume(of: element)
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
