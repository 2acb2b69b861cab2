import TenbinKit

extension Board {
    /// Opens the board in the store folder `folder` on the embedded backend: its
    /// `tenbin.sqlite` and `blobs/`. With `create`, the folder and database are made when
    /// missing; without, a missing store reads as an empty board and nothing is created.
    public convenience init(folder: String, configuration: Configuration = Configuration(), create: Bool) throws {
        let store = try SQLiteStore(folder: folder, create: create)
        self.init(configuration, store: store, blobs: BlobStore(storeFolder: folder))
    }
}
