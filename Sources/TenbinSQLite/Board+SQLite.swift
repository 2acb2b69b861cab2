import TenbinKit

extension Board {
    /// Opens the board in `configuration.storePath` on the embedded backend: its
    /// `tenbin.sqlite` and `blobs/`. With `create`, the folder and database are made when
    /// missing; without, a missing store reads as an empty board and nothing is created.
    public convenience init(_ configuration: Configuration, create: Bool) throws {
        let store = try SQLiteStore(folder: configuration.storePath, create: create)
        self.init(configuration, store: store, blobs: BlobStore(root: "\(configuration.storePath)/blobs"))
    }
}
