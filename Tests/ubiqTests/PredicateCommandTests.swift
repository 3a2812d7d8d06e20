import Testing
import UbiquityPredicate
import UbiquityTesting

/// `ubiq predicate ...` run as a real process: stdout, stderr and exit status.
@Suite(.ownThreads) struct PredicateCommandTests {
    @Test func checkPrintsTheCanonicalForm() throws {
        let r = try ubiq.run(["predicate", "check", "name like 'Item_*' or size > 10 and isHidden == NO"])
        #expect(r.status == 0)
        #expect(r.stdout == "kMDItemFSName LIKE \"Item_*\" OR (kMDItemFSSize > 10 AND kMDItemFSInvisible == FALSE)\n")
        #expect(r.stderr.isEmpty)
    }

    @Test func checkSubstitutesArgumentsInOrder() throws {
        let r = try ubiq.run(["predicate", "check", "%K == %@ AND size > %d AND modified > %@",
                             "name", "Item_1", "100", "2026-11-01"])
        #expect(r.status == 0)
        #expect(r.stdout == "kMDItemFSName == \"Item_1\" AND kMDItemFSSize > 100 AND "
            + "kMDItemFSContentChangeDate > $time.iso(2026-11-01T00:00:00Z)\n")
    }

    @Test func checkBindsVariables() throws {
        let r = try ubiq.run(["predicate", "check", "size >= $MIN", "--var", "MIN=4096"])
        #expect(r.status == 0)
        #expect(r.stdout == "kMDItemFSSize >= 4096\n")
    }

    @Test func syntaxErrorGoesToStderrWithCaretAndExit2() throws {
        let r = try ubiq.run(["predicate", "check", "kMDItemFSName LIKE )"])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == """
            ubiq: predicate error at 19: expected a value after LIKE, found ')' [predicate.syntax]
              kMDItemFSName LIKE )
                                 ^

            """)
    }

    @Test func unknownAttributeSuggestsTheNearestName() throws {
        let r = try ubiq.run(["predicate", "check", "kMDItemFSNam == 'x'"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix(
            "ubiq: predicate error at 0: unknown attribute 'kMDItemFSNam'; did you mean 'kMDItemFSName'? [predicate.unknownAttribute]"))
    }

    @Test func missingArgumentIsAnArgumentError() throws {
        let r = try ubiq.run(["predicate", "check", "name == %@"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("[predicate.argument]"))
        #expect(r.stderr.contains("no argument for %@"))
    }

    @Test func badVarSyntaxIsAUsageError() throws {
        let r = try ubiq.run(["predicate", "check", "size > $MIN", "--var", "MIN"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--var expects NAME=VALUE, found 'MIN'"))
    }

    @Test func checkJSONIncludesTheNameHint() throws {
        let r = try ubiq.run(["predicate", "check", "--json", "name LIKE 'Item_*' AND size > 3"])
        #expect(r.status == 0)
        #expect(r.stdout == #"{"canonical":"kMDItemFSName LIKE \"Item_*\" AND kMDItemFSSize > 3","#
            + #""nameHint":{"caseInsensitive":false,"exact":[],"prefix":["Item_"]}}"# + "\n")
    }

    @Test func evalPrintsTrueOrFalse() throws {
        let item = #"{"name": "Item_1", "modified": "2026-11-22T09:00:00Z", "tags": ["urgent"]}"#
        let yes = try ubiq.run(["predicate", "eval", "name LIKE 'Item_*' AND modified > $time.today(-1)",
                               "--item", item, "--now", "2026-11-22T10:00:00Z", "--time-zone", "UTC"])
        #expect(yes.status == 0)
        #expect(yes.stdout == "true\n")
        let no = try ubiq.run(["predicate", "eval", "modified < $time.today", "--item", item,
                              "--now", "2026-11-22T10:00:00Z", "--time-zone", "UTC"])
        #expect(no.status == 0)
        #expect(no.stdout == "false\n")
        let tags = try ubiq.run(["predicate", "eval", "ANY tags == 'urgent'", "--item", item])
        #expect(tags.stdout == "true\n")
    }

    /// Real zone files through the C library (`--time-zone`, or `TZ` for the local zone): New York's
    /// autumn change of offset between now and three weeks ago, and Santiago's spring change that
    /// skips midnight (the day starts at 01:00).
    @Test func evalResolvesRelativeDatesInRealZones() throws {
        func eval(_ predicate: String, modified: String, now: String, zone: String?, environment: [String: String] = [:]) throws -> String {
            let r = try ubiq.run(["predicate", "eval", predicate, "--item", #"{"modified": "\#(modified)"}"#, "--now", now]
                                 + (zone.map { ["--time-zone", $0] } ?? []), environment: environment)
            #expect(r.status == 0, "\(predicate) in \(zone ?? "TZ"): \(r.stderr)")
            return r.stdout
        }
        // 2026-11-01 00:00 EDT (04:00Z) is 21 days before 2026-11-22 (EST, -05:00).
        #expect(try eval("modified == $time.today(-21)", modified: "2026-11-01T04:00:00Z", now: "2026-11-22T10:00:00Z",
                         zone: "America/New_York") == "true\n")
        #expect(try eval("modified == $time.this_month", modified: "2026-11-01T04:00:00Z", now: "2026-11-22T10:00:00Z",
                         zone: "America/New_York") == "true\n")
        #expect(try eval("modified == $time.today", modified: "2026-11-22T05:00:00Z", now: "2026-11-22T10:00:00Z",
                         zone: "America/New_York") == "true\n")
        // Santiago: 2026-09-06 has no 00:00 (00:00 -04 became 01:00 -03 = 04:00Z).
        #expect(try eval("modified == $time.today", modified: "2026-09-06T04:00:00Z", now: "2026-09-06T12:00:00Z",
                         zone: "America/Santiago") == "true\n")
        // No --time-zone: the local zone, from TZ (the tests' own default is UTC).
        #expect(try eval("modified == $time.today", modified: "2026-11-21T15:00:00Z", now: "2026-11-22T10:00:00Z",
                         zone: nil, environment: ["TZ": "Asia/Tokyo"]) == "true\n")
        #expect(try eval("modified == $time.today", modified: "2026-11-22T00:00:00Z", now: "2026-11-22T10:00:00Z",
                         zone: nil) == "true\n")
    }

    @Test func evalRefusesAnUnknownTimeZone() throws {
        for zone in ["Mars/Olympus_Mons", "../../etc/passwd", "zone.tab", ""] {
            let r = try ubiq.run(["predicate", "eval", "modified > $time.today", "--item", "{}", "--time-zone", zone])
            #expect(r.status == 64, "\(zone)")
            #expect(r.stderr.contains("--time-zone: unknown time zone '\(zone)'"), "\(zone): \(r.stderr)")
        }
    }

    @Test func evalDiacriticsFollowTheModifiers() throws {
        let item = #"{"name": "École"}"#
        #expect(try ubiq.run(["predicate", "eval", "name ==[cd] 'ecole'", "--item", item]).stdout == "true\n")
        #expect(try ubiq.run(["predicate", "eval", "name ==[c] 'ecole'", "--item", item]).stdout == "false\n")
        #expect(try ubiq.run(["predicate", "eval", "name ==[c] 'éCOLE'", "--item", item]).stdout == "true\n")
    }

    @Test func evalRejectsBadItems() throws {
        let notJSON = try ubiq.run(["predicate", "eval", "size > 1", "--item", "{name"])
        #expect(notJSON.status == 2)
        #expect(notJSON.stderr.hasPrefix("ubiq: --item: not valid JSON"))

        let notObject = try ubiq.run(["predicate", "eval", "size > 1", "--item", "[1]"])
        #expect(notObject.status == 2)
        #expect(notObject.stderr == "ubiq: --item: expected a JSON object such as {\"name\": \"Item_1\"}, found an array\n")

        let wrongType = try ubiq.run(["predicate", "eval", "size > 1", "--item", #"{"size": "big"}"#])
        #expect(wrongType.status == 2)
        #expect(wrongType.stderr == "ubiq: --item: attribute 'kMDItemFSSize': expected a number, found a string\n")

        let unknown = try ubiq.run(["predicate", "eval", "size > 1", "--item", #"{"sise": 3}"#])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "ubiq: --item: attribute 'sise': unknown attribute; did you mean 'size'?\n")

        let badDate = try ubiq.run(["predicate", "eval", "size > 1", "--item", "{}", "--now", "yesterday"])
        #expect(badDate.status == 64)
        #expect(badDate.stderr.contains("--now: expected an ISO-8601 time"))
    }

    @Test func attributesListsEveryAttribute() throws {
        let r = try ubiq.run(["predicate", "attributes"])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ATTRIBUTE") == true)
        #expect(lines.contains { $0.hasPrefix("kMDItemFSName") && $0.contains("NSMetadataItemFSNameKey, name") })
        #expect(lines.count == 1 + Attribute.all.count)
        #expect(lines.contains { $0.hasPrefix("NSMetadataUbiquitousItemPercentDownloadedKey") && $0.contains("integer") })
        let json = try ubiq.run(["predicate", "attributes", "--json"])
        #expect(json.stdout.split(separator: "\n").first
            == #"{"aliases":["NSMetadataItemFSNameKey","name"],"name":"kMDItemFSName","summary":"file name","type":"string"}"#)
    }
}
