/// The people who write to the demo account.
enum DemoContacts {
    struct Person: Sendable {
        var email: String
        var first: String
    }

    static let people: [Person] = [
        ("ada.lovelace", "Ada", "analytical.example"), ("grace.hopper", "Grace", "navy.example"),
        ("alan.turing", "Alan", "bletchley.example"), ("margaret.hamilton", "Margaret", "apollo.example"),
        ("dennis.ritchie", "Dennis", "bell-labs.example"), ("barbara.liskov", "Barbara", "mit.example"),
        ("ken.thompson", "Ken", "bell-labs.example"), ("frances.allen", "Frances", "ibm.example"),
        ("edsger.dijkstra", "Edsger", "eindhoven.example"), ("radia.perlman", "Radia", "dec.example"),
        ("tim.bernerslee", "Tim", "cern.example"), ("hedy.lamarr", "Hedy", "mgm.example"),
        ("katherine.johnson", "Katherine", "nasa.example"), ("sophie.wilson", "Sophie", "acorn.example"),
        ("anita.borg", "Anita", "parc.example"), ("niklaus.wirth", "Niklaus", "ethz.example"),
        ("joan.clarke", "Joan", "bletchley.example"), ("donald.knuth", "Donald", "stanford.example"),
        ("leslie.lamport", "Leslie", "sri.example"), ("shafi.goldwasser", "Shafi", "mit.example"),
        ("ivan.sutherland", "Ivan", "utah.example"), ("adele.goldberg", "Adele", "parc.example"),
        ("brian.kernighan", "Brian", "princeton.example"), ("karen.sparckjones", "Karen", "cambridge.example"),
        ("billing", "Billing", "cloudhost.example"), ("team", "Team", "switchboard.example"),
    ].map { Person(email: "\($0.0)@\($0.2)", first: $0.1) }
}
