import Foundation
import GRDB
import Testing

@testable import MediaLibrary

/// Statements bound and stepped straight through SQLite (``RawRow``, ``RawCursor``) take each
/// kind of value as GRDB would, and refuse a wrong number of values.
@Suite("Raw rows")
struct RawRowsTests {
    private func withDatabase(_ body: (Database) throws -> Void) throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase(body)
    }

    @Test func everyKindOfValueIsBoundAsGiven() throws {
        try withDatabase { db in
            let values: [DatabaseValue] = [
                .null, 42.databaseValue, 2.5.databaseValue, "".databaseValue, "b é".databaseValue,
                Data([0, 1, 255]).databaseValue, Int64.min.databaseValue,
            ]
            var seen: [DatabaseValue] = []
            let sql = "SELECT " + values.map { _ in "?" }.joined(separator: ", ")
            try RawRow.forEach(db, sql, arguments: values, cached: true) { row in
                for column in values.indices {
                    seen.append(DatabaseValue(sqliteStatement: row.handle, index: Int32(column)))
                }
            }
            #expect(seen == values)
            // Bound again on the cached statement, with other values.
            var again: [Int64] = []
            try RawRow.forEach(db, "SELECT ?", arguments: [7.databaseValue], cached: true) { again.append($0.int64(0)) }
            #expect(again == [7])
        }
    }

    @Test func aWrongNumberOfValuesIsAnError() throws {
        try withDatabase { db in
            #expect(throws: DatabaseError.self) {
                try RawRow.forEach(db, "SELECT ?, ?", arguments: [1.databaseValue]) { _ in }
            }
            #expect(throws: DatabaseError.self) {
                _ = try RawCursor(db, "SELECT ?", [1.databaseValue, 2.databaseValue])
            }
            var cursor = try RawCursor(db, "SELECT ? UNION ALL SELECT ?", ["x".databaseValue, "y".databaseValue])
            var texts: [String] = []
            while cursor.hasRow {
                texts.append(cursor.row.string(0))
                try cursor.step()
            }
            cursor.reset()
            #expect(texts == ["x", "y"])
        }
    }
}
