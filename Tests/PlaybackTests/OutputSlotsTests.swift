import Testing

@testable import Playback

/// Which outputs play and which keeps the time, driven by hand: no thread, no device.
@Suite struct OutputSlotsTests {
    @Test func theFirstOutputThatPlaysKeepsTheTime() {
        var slots = OutputSlots(enabledAtStart: [false, true, true], attached: true)
        #expect(slots.reference == 1)
        #expect(slots.setEnabled(0, true) == true)
        #expect(slots.reference == 0)
        #expect(slots.setEnabled(0, true) == false)
        #expect(slots.setEnabled(7, true) == nil)
        #expect(slots.setEnabled(0, false) == true)
        #expect(slots.setEnabled(1, false) == true)
        #expect(slots.reference == 2)
        #expect(slots.setEnabled(2, false) == true)
        #expect(slots.reference == nil)
        #expect(!slots.anyEnabled)
    }

    @Test func aFailedOutputWaitsForTheNextGeneration() {
        var slots = OutputSlots(enabledAtStart: [true, true], attached: true)
        slots.failed(0, message: "Failed to open", generation: 3)
        #expect(slots.reference == 1)
        #expect(!slots[0].plays)
        #expect(slots[0].error == "Failed to open")
        #expect(!slots.mayResume(0, generation: 3))
        #expect(slots.mayResume(0, generation: 4))
        let buffer = PCMBuffer(totalBytes: 16 * 4096)
        #expect(slots.resume(0, buffer: buffer) != nil)
        #expect(slots[0].plays && slots[0].holding)
        #expect(slots.reference == 0)
        // Enabling it again also clears a failure.
        slots.failed(1, message: "gone", generation: 5)
        #expect(slots.setEnabled(1, false) == true)
        #expect(slots.setEnabled(1, true) == true)
        #expect(slots[1].plays)
    }

    @Test func anOutputMovesBetweenPipelines() {
        let buffer = PCMBuffer(totalBytes: 16 * 4096)
        var home = OutputSlots(enabledAtStart: [true], attached: true)
        var other = OutputSlots(enabledAtStart: [true], attached: false)
        #expect(other.reference == nil && !other[0].enabled)
        #expect(other.beginDetach(0, buffer: buffer) == nil)
        home.started(0, reader: 0)
        #expect(home.beginDetach(0, buffer: buffer) == true)
        #expect(home.reference == nil)
        // Its thread still holds the device until it says it let go.
        #expect(home[0].holding)
        home.released(0)
        home.finishDetach(0)
        #expect(!home[0].enabled && !home[0].attached)
        other.attach(0, enabled: true, buffer: buffer)
        #expect(other[0].holding && other[0].handedReader != nil)
        #expect(other.reference == 0)
        // Moved away again before its thread took the reader: nothing to wait for.
        #expect(other.beginDetach(0, buffer: buffer) == true)
        #expect(!other[0].holding && other[0].handedReader == nil)
        #expect(!buffer.hasReaders)
        other.cancelDetach(0)
        #expect(other[0].attached && other.reference == 0)
    }
}
