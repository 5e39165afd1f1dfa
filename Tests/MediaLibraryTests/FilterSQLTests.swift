import GRDB
import MPDProtocol
import Testing
@testable import MediaLibrary

@Suite("Filter SQL")
struct FilterSQLTests {
    @Test func aSubstringSearchIsDrivenByTheTrigramIndex() throws {
        let filter = try FilterExpression.parse(expression: "(title contains 'night')", foldCase: true)
        let sql = FilterSQL.condition(filter).sql
        #expect(sql.contains("+t.tag = ?"))
        #expect(sql.contains("songTagText MATCH ?"))
    }

    @Test func shortOrUnindexedSearchesUseTheTagIndex() throws {
        for expression in ["(title contains 'ni')", "(track contains '123')", "(title == 'night')"] {
            let filter = try FilterExpression.parse(expression: expression, foldCase: true)
            let sql = FilterSQL.condition(filter).sql
            #expect(!sql.contains("+t.tag"), "\(expression)")
            #expect(!sql.contains("MATCH"), "\(expression)")
        }
    }

    @Test func trigramSearchFindsTheSameSongs() throws {
        let library = try TestLibrary([("1.mp3", tags((.title, "one")), 1), ("7.mp3", tags((.title, "Tonight")), 1), ("8.mp3", tags((.title, "NIGHTS")), 1)])
        defer { library.remove() }
        let filter = try FilterExpression.parse(expression: "(title contains 'night')", foldCase: true)
        let condition = FilterSQL.condition(filter)
        let uris = try library.read { db in
            try String.fetchAll(db, sql: "SELECT s.uri FROM song s WHERE \(condition.sql) ORDER BY s.uri",
                                arguments: StatementArguments(condition.arguments))
        }
        #expect(uris == ["7.mp3", "8.mp3"])
    }
}
