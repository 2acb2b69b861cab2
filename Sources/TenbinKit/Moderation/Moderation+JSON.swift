extension JSON {
    /// One poster as a moderator sees it (`moderation show --json`, `GET /api/v1/admin/posters/ID`):
    /// `{"poster": POSTER, "hidden", "hiddenSince", "counted", "reasons": {"spam": N, …},
    /// "latest", "reports": [{"reason", "note", "createdAt"}]}`; `hiddenSince` and `latest` are
    /// null when there is none. Reporters' addresses are not shown.
    public static func moderationItem(_ item: ModerationItem) -> String {
        write { $0.moderationItem(item) }
    }

    /// The review queue (`moderation list --json`, `GET /api/v1/admin/queue`): `{"items": [ITEM, …]}`,
    /// one item per line, latest activity first.
    public static func moderationQueue(_ items: [ModerationItem]) -> String {
        write { json in
            json.object { json in
                json.key("items")
                json.array(items, layout: .oneItemPerLine) { $0.moderationItem($1) }
            }
        }
    }

    /// The audit log (`moderation log --json`, `GET /api/v1/admin/log`): `{"entries": [{"id",
    /// "at", "actor", "action", "poster", "reason"}, …]}`, newest first, one per line.
    public static func auditLog(_ entries: [AuditEntry]) -> String {
        write { json in
            json.object { json in
                json.key("entries")
                json.array(entries, layout: .oneItemPerLine) { $0.auditEntry($1) }
            }
        }
    }

    /// A report as accepted (`report --json`, `POST /api/v1/posters/ID/reports`): `{"poster", "reason"}`.
    /// Whether it hid the poster is not said: a reporter learns nothing of the others.
    public static func reportAccepted(poster id: Int64, reason: ReportReason) -> String {
        write { json in
            json.object { json in
                json.field("poster", id)
                json.field("reason", reason.rawValue)
            }
        }
    }
}

extension JSONWriter {
    /// ``JSON/moderationItem(_:)``.
    package mutating func moderationItem(_ item: ModerationItem) {
        object { json in
            json.key("poster")
            json.poster(item.poster)
            json.field("hidden", item.isHidden)
            json.key("hiddenSince")
            if let since = item.hiddenSince { json.timestamp(since) } else { json.null() }
            json.field("counted", item.counted)
            json.key("reasons")
            json.object { json in
                for (reason, count) in item.reasons { json.field(reason.rawValue, count) }
            }
            json.key("latest")
            if let latest = item.latest { json.timestamp(latest) } else { json.null() }
            json.key("reports")
            json.array(item.reports) { json, report in
                json.object { json in
                    json.field("reason", report.reason.rawValue)
                    json.field("note", report.note)
                    json.key("createdAt")
                    json.timestamp(report.createdAt)
                }
            }
        }
    }

    /// One audit entry.
    package mutating func auditEntry(_ entry: AuditEntry) {
        object { json in
            json.field("id", entry.id)
            json.key("at")
            json.timestamp(entry.at)
            json.field("actor", entry.actor)
            json.field("action", entry.action.rawValue)
            json.field("poster", entry.posterID)
            json.field("reason", entry.reason)
        }
    }
}
