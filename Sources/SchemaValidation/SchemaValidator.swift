import Jansson

/// Checks JSON values against JSON Schema (draft 2020-12 semantics) for the subset the method schemas
/// use: `type` (one or several), `enum`, `const`, `properties`, `required`, `additionalProperties`,
/// `items`, `minItems`/`maxItems`, `minimum`/`maximum` (and the exclusive ones), `minLength`/`maxLength`,
/// `pattern` (ICU, bounded: ``CompiledPattern``), `format` (date-time, email, uri), `$ref` (to
/// `#/components/schemas/NAME` and to the external documents it is given), `oneOf`, `anyOf`, `allOf`.
///
/// - Important: a keyword it does not know is reported as a problem, never skipped, so a schema using
///   more than this validator understands cannot pass unchecked — unless ``ignoresUnknownKeywords`` is
///   set, as for plugins' tool schemas, which the plugin checks again itself. Annotations (`description`, `default`,
///   `title`, `examples`, `$comment`) are ignored, as the standard says.
/// - Important: a validator compiles each pattern once and keeps it: make one per schema and reuse it.
///   A check stops early when its task is cancelled (the caller looks at `Task.isCancelled`); it takes
///   at most ``ValidationBudget/stepsPerValidation`` schema applications (``standalone(_:)`` only) and
///   its pattern searches together at most ``ValidationBudget/ticksPerValidation`` ticks: running out is
///   a problem ("took too long", "too many steps"), never a wait.
///
/// ```swift
/// let validator = SchemaValidator(components: document["components"]?["schemas"]?.objectValue ?? [:])
/// let problems = validator.problems(of: answer, against: schema)   // [] when it matches
/// ```
public struct SchemaValidator: Sendable {
    /// Shared schemas by name, for `#/components/schemas/NAME`.
    public let components: JSONObject
    /// Whole documents by URL, for `$ref`s that leave the document.
    public let external: [String: JSONValue]
    /// Skips keywords it does not know instead of reporting them (schemas written elsewhere).
    public let ignoresUnknownKeywords: Bool
    /// The schema being checked, for `$ref`s into its own `$defs` (`#/$defs/NAME`).
    private let root: JSONValue?
    private let patterns = PatternCache()
    /// What the check under way may still spend; one per ``problems(of:against:at:)``.
    private var budget = ValidationBudget()
    /// Schema applications one check may take: bounded for schemas written elsewhere (``standalone(_:)``).
    private let maxSteps: Int

    public init(components: JSONObject, external: [String: JSONValue] = [:], ignoresUnknownKeywords: Bool = false) {
        self.init(components: components, external: external, ignoresUnknownKeywords: ignoresUnknownKeywords, root: nil, maxSteps: .max)
    }

    private init(components: JSONObject, external: [String: JSONValue], ignoresUnknownKeywords: Bool, root: JSONValue?, maxSteps: Int) {
        self.maxSteps = maxSteps
        self.components = components
        self.external = external
        self.ignoresUnknownKeywords = ignoresUnknownKeywords
        self.root = root
    }

    /// A validator for a self-contained schema (a tool's `inputSchema`): `$ref`s point into its own
    /// `$defs` or `definitions`, keywords it does not know are skipped, and a check takes at most
    /// ``ValidationBudget/stepsPerValidation`` schema applications.
    public static func standalone(_ schema: JSONValue) -> SchemaValidator {
        SchemaValidator(components: [:], external: [:], ignoresUnknownKeywords: true, root: schema, maxSteps: ValidationBudget.stepsPerValidation)
    }

    /// Every way `value` fails `schema`, each naming where (`result.items[3].date`) and why; empty when it matches.
    public func problems(of value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        var found: [String] = []
        var pass = self
        pass.budget = ValidationBudget(steps: maxSteps)
        pass.check(value, schema, path, depth: 0, into: &found)
        // Cut short, the check may have let a branch pass: only the bound is reported.
        return pass.budget.ranOutOfSteps ? [ValidationBudget.outOfSteps] : found
    }

    /// Keywords that only annotate.
    static let annotations: Set<String> = ["description", "default", "title", "examples", "$comment", "deprecated", "readOnly", "writeOnly"]

    private func check(_ value: JSONValue, _ schema: JSONValue, _ path: String, depth: Int, into found: inout [String]) {
        if Task.isCancelled || !budget.takeStep() { return }
        guard depth < 64 else {
            found.append("\(path): schema nesting too deep (a $ref loop?)")
            return
        }
        if case .bool(let accepts) = schema {
            if !accepts { found.append("\(path): no value is allowed here") }
            return
        }
        guard let keywords = schema.objectValue else {
            found.append("\(path): the schema is not an object or boolean: \(schema.jsonText())")
            return
        }
        if keywords["properties"] != nil || keywords["required"] != nil || keywords["additionalProperties"] != nil {
            checkObject(value, keywords, path, depth: depth, into: &found)
        }
        for (keyword, argument) in keywords {
            switch keyword {
            case "$ref":
                guard let target = resolve(argument) else {
                    found.append("\(path): unresolvable $ref \(argument.jsonText())")
                    continue
                }
                check(value, target, path, depth: depth + 1, into: &found)
            case "type":
                let names = argument.arrayValue?.compactMap(\.stringValue) ?? argument.stringValue.map { [$0] } ?? []
                if names.isEmpty { found.append("\(path): bad type keyword \(argument.jsonText())") }
                if !names.contains(where: { Self.hasType(value, $0) }) {
                    found.append("\(path): expected \(names.joined(separator: " or ")), got \(Self.describe(value))")
                }
            case "enum":
                let options = argument.arrayValue ?? []
                if !options.contains(where: { JSONEquality.equal($0, value) }) {
                    found.append("\(path): \(Self.excerpt(value)) is not one of \(argument.jsonText())")
                }
            case "const":
                if !JSONEquality.equal(argument, value) {
                    found.append("\(path): expected \(argument.jsonText()), got \(Self.excerpt(value))")
                }
            case "properties", "required", "additionalProperties":
                continue  // checked together, above
            case "items":
                guard let elements = value.arrayValue else { continue }
                for (position, element) in elements.enumerated() where !Task.isCancelled {
                    check(element, argument, "\(path)[\(position)]", depth: depth + 1, into: &found)
                }
            case "minItems", "maxItems":
                guard let elements = value.arrayValue, let bound = argument.int64Value else { continue }
                if keyword == "minItems" ? elements.count < bound : elements.count > bound {
                    found.append("\(path): \(elements.count) items, \(keyword) is \(bound)")
                }
            case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
                guard let number = Self.number(value), let bound = Self.number(argument) else { continue }
                let ok = switch keyword {
                case "minimum": number >= bound
                case "maximum": number <= bound
                case "exclusiveMinimum": number > bound
                default: number < bound
                }
                if !ok { found.append("\(path): \(Self.excerpt(value)) breaks \(keyword) \(argument.jsonText())") }
            case "minLength", "maxLength":
                guard let text = value.stringValue, let bound = argument.int64Value else { continue }
                // JSON Schema counts characters as code points.
                let length = text.unicodeScalars.count
                if keyword == "minLength" ? length < bound : length > bound {
                    found.append("\(path): \(length) characters, \(keyword) is \(bound)")
                }
            case "pattern":
                guard let text = value.stringValue, let pattern = argument.stringValue else { continue }
                switch patterns.pattern(pattern).flatMap({ $0.search(text, budget: budget) }) {
                case .success(true), .failure(.cancelled):
                    break
                case .success(false):
                    found.append("\(path): \(Self.excerpt(value)) does not match \(pattern)")
                case .failure(.doesNotCompile(let reason)):
                    if !ignoresUnknownKeywords { found.append("\(path): pattern \(pattern) does not compile (\(reason))") }
                case .failure(.tooSlow):
                    found.append("\(path): pattern \(pattern) took too long to match (the check's \(ValidationBudget.ticksPerValidation) ticks ran out)")
                case .failure(.tooMuchMemory):
                    found.append("\(path): pattern \(pattern) needs too much memory to match (over \(CompiledPattern.stackBytes >> 20) MiB)")
                case .failure(.failed):
                    found.append("\(path): pattern \(pattern) could not be matched")
                }
            case "format":
                guard let text = value.stringValue, let format = argument.stringValue else { continue }
                guard let valid = Formats.check(format, text) else {
                    if !ignoresUnknownKeywords { found.append("\(path): unsupported format \(format)") }
                    continue
                }
                if !valid { found.append("\(path): \(Self.excerpt(value)) is not a valid \(format)") }
            case "oneOf", "anyOf", "allOf":
                let branches = argument.arrayValue ?? []
                let results = branches.enumerated().map { position, branch in
                    var branchProblems: [String] = []
                    check(value, branch, path, depth: depth + 1, into: &branchProblems)
                    return (position, branchProblems)
                }
                let matching = results.filter { $0.1.isEmpty }.count
                switch keyword {
                case "oneOf" where matching != 1:
                    let why = results.map { "[\($0.0)] " + ($0.1.isEmpty ? "matches" : $0.1.joined(separator: "; ")) }
                    found.append("\(path): matches \(matching) of the oneOf branches, not exactly one (\(why.joined(separator: " | ")))")
                case "anyOf" where matching == 0:
                    found.append("\(path): matches none of anyOf (\(results.flatMap(\.1).joined(separator: " | ")))")
                case "allOf":
                    found += results.flatMap(\.1)
                default:
                    break
                }
            case "$schema", "$id", "$defs", "definitions":
                continue  // identify the schema or hold the targets of `$ref`s
            default:
                if !ignoresUnknownKeywords, !Self.annotations.contains(keyword) {
                    found.append("\(path): the validator does not support the keyword \"\(keyword)\"")
                }
            }
        }
    }

    /// `properties`, `required` and `additionalProperties` together (the last depends on the first).
    private func checkObject(_ value: JSONValue, _ keywords: JSONObject, _ path: String, depth: Int, into found: inout [String]) {
        guard let object = value.objectValue else { return }
        let properties = keywords["properties"]?.objectValue ?? [:]
        for name in keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
            found.append("\(path): missing required member \"\(name)\"")
        }
        for (name, member) in object where !Task.isCancelled {
            let memberPath = "\(path).\(name)"
            if let schema = properties[name] {
                check(member, schema, memberPath, depth: depth + 1, into: &found)
            } else if let additional = keywords["additionalProperties"] {
                if additional == false {
                    found.append("\(path): member \"\(name)\" is not allowed (additionalProperties: false)")
                } else {
                    check(member, additional, memberPath, depth: depth + 1, into: &found)
                }
            }
        }
    }

    private func resolve(_ reference: JSONValue) -> JSONValue? {
        guard let text = reference.stringValue else { return nil }
        let prefix = "#/components/schemas/"
        if text.hasPrefix(prefix) { return components[String(text.dropFirst(prefix.count))] }
        if text == "#" { return root }
        for local in ["#/$defs/", "#/definitions/"] where text.hasPrefix(local) {
            return root?[String(local.dropFirst(2).dropLast())]?[String(text.dropFirst(local.count))]
        }
        return external[text]
    }

    static func hasType(_ value: JSONValue, _ name: String) -> Bool {
        switch (name, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): true
        case ("integer", .integer): true
        case ("integer", .double(let number)): number.rounded() == number && number.isFinite
        case ("number", .integer), ("number", .double): true
        default: false
        }
    }

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    static func describe(_ value: JSONValue) -> String {
        let kind = switch value {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
        return "\(kind) \(excerpt(value))"
    }

    /// A value's JSON text, cut short: messages stay readable whatever was answered.
    static func excerpt(_ value: JSONValue) -> String {
        let text = value.jsonText()
        return text.count > 120 ? String(text.prefix(117)) + "…" : text
    }
}

/// JSON equality as JSON Schema means it: member order does not matter, 1 equals 1.0.
enum JSONEquality {
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            return x.allSatisfy { key, value in y[key].map { equal(value, $0) } ?? false }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.integer, .double), (.double, .integer):
            return SchemaValidator.number(a) == SchemaValidator.number(b)
        default:
            return a == b
        }
    }
}
