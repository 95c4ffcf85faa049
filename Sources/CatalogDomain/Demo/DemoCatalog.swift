import SwitchboardCore

/// The demo catalog: a dozen sectors whose names need collation to sort as a reader expects (accents,
/// case, a leading digit, letters German and Swedish place apart), holding a few hundred brochures.
/// A pure function of nothing: the same on every machine, in memory and in SQLite.
public enum DemoCatalog {
    /// How many brochures the demo catalog holds.
    public static let brochureCount = 300

    /// The demo sectors: `(name, retailers, titles)`; ids are 1...12 in this order.
    static let sectors: [(name: String, retailers: [String], titles: [String])] = [
        ("Lebensmittel", ["Frischmarkt", "Nahkauf Süd", "Supermarché Lefèvre"], ["Wochenangebote", "Frische Woche", "Regionale Küche"]),
        ("Möbel & Wohnen", ["Wohnwelt", "Möbelhaus Öztürk", "Skandi Hem"],
         ["Gemütliches Zuhause", "Schöner wohnen", "Küchen-Spezial"]),
        ("Öl & Heizung", ["Heizöl Müller", "Wärme Nord"], ["Heizöl-Preise", "Winter-Vorrat"]),
        ("Ärzte & Apotheken", ["Löwen-Apotheke", "Apotheke am Markt"], ["Gesund durch den Winter", "Erkältungszeit"]),
        ("Zoo & Tierbedarf", ["Tierparadies", "Fressnapf-Ecke"], ["Alles fürs Tier", "Katzenglück"]),
        ("eBikes & Fahrräder", ["Radhaus Çelik", "Velo Ørsted"], ["Frühlings-Touren", "E-Bike-Wochen"]),
        ("Baumarkt & Garten", ["Bauhof", "Gartencenter Grünland"], ["Frühjahrs-Start", "Werkzeug-Tage"]),
        ("Épicerie fine", ["Épicerie Dubois", "Feinkost Åberg"], ["Crème de la crème", "Délices d'hiver"]),
        ("1-Euro-Shops", ["Euroland", "Alles-für-1"], ["Schnäppchen der Woche", "Deko für wenig Geld"]),
        ("Åland-Reisen", ["Nordlicht Reisen", "Fähre Åbo"], ["Sommer auf Åland", "Inselhüpfen"]),
        ("apotheken-Kosmetik", ["Schönheit pur", "Naturkosmetik Ölz"], ["Pflege-Spezial", "Winterhaut"]),
        ("Mode & Schuhe", ["Modehaus Kühn", "Schuh-Oase", "Boutique Élise"], ["Herbst-Kollektion", "Sale bis -50 %"]),
    ]

    /// Every sector, then every brochure, as an import would give them: brochure `n` (1-based) has id
    /// `1000 + n` and lands in a sector picked by ``SplitMix64``, so sectors hold different numbers.
    public static func entries() -> [CatalogEntry] {
        var entries = sectors.enumerated().map { index, sector in
            CatalogEntry.sector(SectorEntry(id: Int64(index + 1), name: sector.name,
                                            imageUrl: "https://images.example.org/sectors/\(index + 1).png"))
        }
        var random = SplitMix64(seed: 0xCA7A_1065)
        for number in 1...brochureCount {
            // One in three in the first four sectors, as in real catalogs: food has more than travel.
            let index = random.chance(33) ? random.next(below: 4) : random.next(below: sectors.count)
            let sector = sectors[index]
            let id = Int64(1_000 + number)
            entries.append(.brochure(Brochure(
                id: id, sectorId: Int64(index + 1), title: "\(random.pick(sector.titles)) KW \(1 + random.next(below: 52))",
                retailerName: random.pick(sector.retailers),
                coverUrl: random.chance(90) ? "https://images.example.org/covers/\(id).jpg" : nil
            )))
        }
        return entries
    }
}
