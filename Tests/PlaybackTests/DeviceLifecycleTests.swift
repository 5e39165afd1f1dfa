import Testing

@testable import Playback

/// An output device's life as its thread drives it: the device calls asked for, in order.
@Suite struct DeviceLifecycleTests {
    let hiRes = PCMFormat(sampleRate: 96000, sample: .s24, channels: 2)

    @Test func aChunkOpensTheDeviceAndAnotherFormatReopensIt() {
        var device = DeviceLifecycle()
        #expect(device.play(.cd) == .open(.cd, reopen: false))
        device.opened(.cd, actual: hiRes)
        #expect(device.actualFormat == hiRes)
        #expect(device.play(.cd) == DeviceLifecycle.Action.none)
        #expect(device.play(hiRes) == .open(hiRes, reopen: true))
        device.openFailed()
        #expect(device.actualFormat == nil)
        #expect(device.play(hiRes) == .open(hiRes, reopen: false))
    }

    /// A device that cannot pause itself (a pipe) is asked once per pause, not again and again
    /// while the pause lasts.
    @Test func aPauseIsHandedToTheDeviceOncePerPause() {
        var device = DeviceLifecycle()
        #expect(device.pause() == DeviceLifecycle.Action.none)
        _ = device.play(.cd)
        device.opened(.cd, actual: .cd)
        #expect(device.pause() == .pause)
        #expect(device.pause() == DeviceLifecycle.Action.none)
        #expect(device.play(.cd) == DeviceLifecycle.Action.none)
        #expect(device.pause() == .pause)
    }

    @Test func aFlushCancelsAndAStopAlsoCloses() {
        var device = DeviceLifecycle()
        #expect(device.flush(stopped: true) == DeviceLifecycle.Action.none)
        _ = device.play(.cd)
        device.opened(.cd, actual: .cd)
        _ = device.pause()
        #expect(device.flush(stopped: false) == .cancel(close: false))
        #expect(device.state == .open(requested: .cd, actual: .cd))
        #expect(device.end() == .drain)
        #expect(device.flush(stopped: true) == .cancel(close: true))
        #expect(device.state == .closed)
        #expect(device.end() == DeviceLifecycle.Action.none)
    }

    @Test func aReleaseClosesAnOpenDeviceOnly() {
        var device = DeviceLifecycle()
        #expect(device.release() == DeviceLifecycle.Action.none)
        _ = device.play(.cd)
        device.opened(.cd, actual: .cd)
        #expect(device.release() == .close)
        #expect(device.release() == DeviceLifecycle.Action.none)
    }
}
