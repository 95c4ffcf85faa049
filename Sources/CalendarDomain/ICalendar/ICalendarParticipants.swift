import CLibical
import SwitchboardCore

/// Participants as ORGANIZER and ATTENDEE properties (RFC 5545 §3.8.4.1, §3.8.4.3) and back, with
/// their JSCalendar roles (RFC 8984 §4.4.6) in the ROLE parameter.
///
/// Written: `chair` as ROLE=CHAIR, `optional` as OPT-PARTICIPANT, `attendee` as REQ-PARTICIPANT,
/// `informational` as NON-PARTICIPANT (in that order of precedence; a participant with none of them
/// is NON-PARTICIPANT, one without any role REQ-PARTICIPANT). Read: CHAIR is `{attendee, chair}`,
/// OPT-PARTICIPANT `{attendee, optional}` (RFC 8984 pairs `optional` with `attendee`),
/// NON-PARTICIPANT `{informational}`, REQ-PARTICIPANT, no ROLE and any other value `{attendee}`.
///
/// The first owner is the ORGANIZER. When it also attends (`attendee`, `chair`, `optional`,
/// `informational`) and has an email, it is written a second time as an ATTENDEE with the same
/// address, as Thunderbird and Google write an organizer who takes part; import joins an ATTENDEE
/// to the ORGANIZER of the same `mailto:` address (roles together, the ATTENDEE's name first). When
/// another participant has the owner's email too, the ORGANIZER is written alone with all its roles
/// in X-SWITCHBOARD-ROLES, and an ORGANIZER with that parameter joins no ATTENDEE.
/// A set of roles that the property and ROLE do not give back exactly (`contact`, `chair` alone, a
/// second owner, no role at all) is written whole as `X-SWITCHBOARD-ROLES="attendee,contact"`,
/// which import takes over ROLE (up to 32 names; more refuse the event). Roles with a comma, a double quote, a caret or a
/// control character in their name are not written.
///
/// A participant's address is `mailto:` its email; one without an email is `invalid:nomail`, as
/// Google writes them. Import takes an email only from a `mailto:` address. Participants are
/// written in key order, shorter keys first (`p2` before `p10`), and read back in file order as
/// `p1`, `p2`, …, so the keys import gives survive another round.
enum ICalendarParticipants {
    /// The parameter that carries a participant's roles where ROLE cannot.
    static let rolesParameter = "X-SWITCHBOARD-ROLES"

    /// Roles that make an owner an ATTENDEE as well.
    private static let attending: Set<String> = ["attendee", "chair", "optional", "informational"]

    // MARK: Writing

    /// Adds `participants` to `component` as ORGANIZER and ATTENDEE properties.
    static func add(_ participants: [String: Participant]?, to component: OpaquePointer) {
        var organizer = false
        let ordered = ICalendarText.inKeyOrder(participants ?? [:])
        var addresses: [String: Int] = [:]
        for participant in ordered { if let email = participant.email, !email.isEmpty { addresses[email.lowercased(), default: 0] += 1 } }
        for participant in ordered {
            let roles = writtenRoles(participant)
            let email = participant.email.flatMap { $0.isEmpty ? nil : $0 }
            let address = email.map { "mailto:" + $0 } ?? ICalendarText.noMail
            guard !organizer, roles.contains("owner") else {
                addAttendee(participant, roles: roles, address: address, to: component)
                continue
            }
            organizer = true
            // Another participant with its address: import would join them, so the ORGANIZER carries all its roles instead.
            let shared = email.map { addresses[$0.lowercased(), default: 0] > 1 } ?? false
            let others = roles.subtracting(["owner"])
            let twin = email != nil && !shared && !others.isDisjoint(with: attending)
            guard let property = icalproperty_new_organizer(address) else { continue }
            addName(participant, to: property)
            if !twin, roles != ["owner"] || shared { addRoles(roles, to: property) }
            icalcomponent_add_property(component, property)
            if twin { addAttendee(participant, roles: others, address: address, to: component) }
        }
    }

    private static func addAttendee(_ participant: Participant, roles: Set<String>, address: String, to component: OpaquePointer) {
        guard let property = icalproperty_new_attendee(address) else { return }
        addName(participant, to: property)
        let role = role(for: roles)
        icalproperty_add_parameter(property, icalparameter_new_role(role))
        if roles != Self.roles(of: role) { addRoles(roles, to: property) }
        icalcomponent_add_property(component, property)
    }

    private static func addName(_ participant: Participant, to property: OpaquePointer) {
        guard let name = participant.name else { return }
        icalproperty_add_parameter(property, icalparameter_new_cn(ICalendarCarriageReturns.split(name).text))
        if let exact = ICalendarCarriageReturns.exactName(name) { ICalendarCarriageReturns.mark(property, ICalendarCarriageReturns.nameParameter, exact) }
    }

    private static func addRoles(_ roles: Set<String>, to property: OpaquePointer) {
        guard let parameter = icalparameter_new_x(roles.sorted().joined(separator: ",")) else { return }
        icalparameter_set_xname(parameter, rolesParameter)
        icalproperty_add_parameter(property, parameter)
    }

    /// The participant's roles that are set and can be written in the parameter.
    private static func writtenRoles(_ participant: Participant) -> Set<String> {
        Set((participant.roles ?? [:]).filter { $0.value && isWritable($0.key) }.keys)
    }

    /// True for a role name the parameter holds and import reads back the same: 1...255 bytes, no
    /// comma (the separator), double quote, caret (libical's escape), control character, or space
    /// at either end (import trims those).
    private static func isWritable(_ role: String) -> Bool {
        !role.isEmpty && role.utf8.count <= 255 && role.first != " " && role.last != " "
            && !role.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "," || $0 == "\"" || $0 == "^" }
    }

    /// The ROLE that says most of `roles`.
    private static func role(for roles: Set<String>) -> icalparameter_role {
        if roles.contains("chair") { return ICAL_ROLE_CHAIR }
        if roles.contains("optional") { return ICAL_ROLE_OPTPARTICIPANT }
        if roles.contains("attendee") || roles.isEmpty { return ICAL_ROLE_REQPARTICIPANT }
        return ICAL_ROLE_NONPARTICIPANT
    }

    /// The roles an ATTENDEE with `role` and no X-SWITCHBOARD-ROLES is read as.
    private static func roles(of role: icalparameter_role) -> Set<String> {
        switch role {
        case ICAL_ROLE_CHAIR: ["attendee", "chair"]
        case ICAL_ROLE_OPTPARTICIPANT: ["attendee", "optional"]
        case ICAL_ROLE_NONPARTICIPANT: ["informational"]
        default: ["attendee"]
        }
    }

    // MARK: Reading

    private struct Entry {
        var participant: Participant
        var mailto: String?
        var isOrganizer: Bool
        /// An ORGANIZER with X-SWITCHBOARD-ROLES: it has all its roles and joins no ATTENDEE.
        var isWhole = false
    }

    /// The ORGANIZER and ATTENDEE properties of `component`, in file order, an ATTENDEE joined to the
    /// ORGANIZER of the same `mailto:` address; `nil` when there are none.
    static func read(_ component: OpaquePointer) -> [String: Participant]? {
        var entries: [Entry] = []
        var property = icalcomponent_get_first_property(component, ICAL_ANY_PROPERTY)
        while let current = property {
            switch icalproperty_isa(current) {
            case ICAL_ORGANIZER_PROPERTY:
                if let entry = entry(current, address: icalproperty_get_organizer(current), isOrganizer: true) { entries.append(entry) }
            case ICAL_ATTENDEE_PROPERTY:
                if let entry = entry(current, address: icalproperty_get_attendee(current), isOrganizer: false) { entries.append(entry) }
            default:
                break
            }
            property = icalcomponent_get_next_property(component, ICAL_ANY_PROPERTY)
        }
        let people = joiningOrganizers(entries)
        guard !people.isEmpty else { return nil }
        var result: [String: Participant] = [:]
        for (index, participant) in people.enumerated() { result["p\(index + 1)"] = participant }
        return result
    }

    private static func entry(_ property: OpaquePointer, address: UnsafePointer<CChar>?, isOrganizer: Bool) -> Entry? {
        guard let address = ICalendarReader.text(address) else { return nil }
        let mailto = address.utf8.count > 7 && address.prefix(7).lowercased() == "mailto:" ? String(address.dropFirst(7)) : nil
        let name = icalproperty_get_first_parameter(property, ICAL_CN_PARAMETER).flatMap { ICalendarReader.text(icalparameter_get_cn($0)) }
            .map { ICalendarCarriageReturns.parameter(ICalendarCarriageReturns.nameParameter, of: property).flatMap(ICalendarCarriageReturns.name(decoding:)) ?? $0 }
        let listed = listedRoles(property)
        let roles = listed ?? defaultRoles(property, isOrganizer: isOrganizer)
        return Entry(participant: Participant(name: name, email: mailto, roles: roles.isEmpty ? nil : roles.reduce(into: [:]) { $0[$1] = true }),
                     mailto: mailto.map { $0.lowercased() }, isOrganizer: isOrganizer, isWhole: isOrganizer && listed != nil)
    }

    /// X-SWITCHBOARD-ROLES, when present and well formed (each name ``isWritable(_:)``); otherwise ROLE
    /// decides. More than ``EventValidation/maximumRoles`` names are taken all, so that the event is
    /// refused saying so rather than imported with the ROLE's roles.
    private static func listedRoles(_ property: OpaquePointer) -> Set<String>? {
        var parameter = icalproperty_get_first_parameter(property, ICAL_X_PARAMETER)
        while let current = parameter {
            if let name = ICalendarReader.text(icalparameter_get_xname(current)), name.uppercased() == rolesParameter {
                let value = ICalendarReader.text(icalparameter_get_xvalue(current)) ?? ""
                let names = value.split(separator: ",").map { $0.trimming { $0 == " " || $0 == "\t" } }.filter { !$0.isEmpty }
                let set = Set(names)
                guard set.count <= EventValidation.maximumRoles else { return set }
                guard names.allSatisfy(isWritable) else { return nil }
                return set
            }
            parameter = icalproperty_get_next_parameter(property, ICAL_X_PARAMETER)
        }
        return nil
    }

    private static func defaultRoles(_ property: OpaquePointer, isOrganizer: Bool) -> Set<String> {
        if isOrganizer { return ["owner"] }
        guard let parameter = icalproperty_get_first_parameter(property, ICAL_ROLE_PARAMETER) else { return ["attendee"] }
        return roles(of: icalparameter_get_role(parameter))
    }

    /// `entries` as participants, each ORGANIZER joined by the first ATTENDEE with its `mailto:`
    /// address (Thunderbird and Google list an organizer who takes part among the attendees too).
    private static func joiningOrganizers(_ entries: [Entry]) -> [Participant] {
        var attendeeByAddress: [String: Int] = [:]
        for (index, entry) in entries.enumerated() where !entry.isOrganizer {
            if let mailto = entry.mailto, attendeeByAddress[mailto] == nil { attendeeByAddress[mailto] = index }
        }
        var twins: [Int: Int] = [:], joined = Set<Int>()
        for (index, entry) in entries.enumerated() where entry.isOrganizer && !entry.isWhole {
            if let mailto = entry.mailto, let twin = attendeeByAddress.removeValue(forKey: mailto) {
                twins[index] = twin
                joined.insert(twin)
            }
        }
        var result: [Participant] = []
        for (index, entry) in entries.enumerated() where !joined.contains(index) {
            guard let twin = twins[index] else {
                result.append(entry.participant)
                continue
            }
            let attendee = entries[twin].participant
            let roles = (entry.participant.roles ?? [:]).merging(attendee.roles ?? [:]) { first, _ in first }
            result.append(Participant(name: attendee.name ?? entry.participant.name, email: entry.participant.email,
                                      roles: roles.isEmpty ? nil : roles))
        }
        return result
    }
}
