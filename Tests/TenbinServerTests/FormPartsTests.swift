import Testing

@testable import TenbinServer

@Suite struct FormPartsTests {
    @Test func placeholder() {}
}
