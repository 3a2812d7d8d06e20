// The compiled program and its virtual machine: a Pike VM without captures, linear in the subject.

extension LinearRegex {
    enum Instruction: Sendable {
        case scalar(UInt32)
        case foldedScalar(UInt32)
        case any
        case anyIncludingNewline
        case set(Int32, caseInsensitive: Bool)
        case split(Int32, Int32)
        case jump(Int32)
        case assertion(Assertion)
        case match
    }

    struct Program: Sendable {
        let instructions: [Instruction]
        let classes: [CharClass]
        let usesFolding: Bool

        init(tree: Node, classes: [CharClass]) {
            var emitter = Emitter()
            emitter.emit(tree)
            emitter.instructions.append(.match)
            instructions = emitter.instructions
            self.classes = classes
            usesFolding = emitter.usesFolding
        }

        struct Emitter {
            var instructions: [Instruction] = []
            var usesFolding = false

            var here: Int32 { Int32(instructions.count) }

            mutating func emit(_ node: Node) {
                switch node.kind {
                case .empty:
                    break
                case .literal(let v, let caseInsensitive):
                    if caseInsensitive {
                        usesFolding = true
                        instructions.append(.foldedScalar(Scalars.fold(v)))
                    } else {
                        instructions.append(.scalar(v))
                    }
                case .any(let dotAll):
                    instructions.append(dotAll ? .anyIncludingNewline : .any)
                case .set(let index, let caseInsensitive):
                    instructions.append(.set(Int32(index), caseInsensitive: caseInsensitive))
                case .assertion(let assertion):
                    instructions.append(.assertion(assertion))
                case .concat(let nodes):
                    for child in nodes { emit(child) }
                case .alternation(let branches):
                    var exits: [Int] = []
                    for (index, branch) in branches.enumerated() {
                        if index == branches.count - 1 {
                            emit(branch)
                        } else {
                            let split = instructions.count
                            instructions.append(.split(0, 0))
                            emit(branch)
                            exits.append(instructions.count)
                            instructions.append(.jump(0))
                            instructions[split] = .split(Int32(split + 1), here)
                        }
                    }
                    for exit in exits { instructions[exit] = .jump(here) }
                case .repetition(let child, let min, let max):
                    if let max {
                        for _ in 0..<min { emit(child) }
                        var splits: [Int] = []
                        for _ in 0..<(max - min) {
                            splits.append(instructions.count)
                            instructions.append(.split(0, 0))
                            emit(child)
                        }
                        for split in splits { instructions[split] = .split(Int32(split + 1), here) }
                    } else if min == 0 {
                        let loop = instructions.count
                        instructions.append(.split(0, 0))
                        emit(child)
                        instructions.append(.jump(Int32(loop)))
                        instructions[loop] = .split(Int32(loop + 1), here)
                    } else {
                        for _ in 0..<(min - 1) { emit(child) }
                        let loop = here
                        emit(child)
                        instructions.append(.split(loop, here + 1))
                    }
                }
            }
        }

        /// A set of program counters with O(1) insert, membership and clear.
        struct ThreadList: Sendable {
            var dense: [Int32]
            var sparse: [Int32]
            var count = 0

            init(capacity: Int) {
                dense = Array(repeating: 0, count: capacity)
                sparse = Array(repeating: 0, count: capacity)
            }

            func contains(_ pc: Int32) -> Bool {
                let slot = Int(sparse[Int(pc)])
                return slot < count && dense[slot] == pc
            }

            mutating func insert(_ pc: Int32) {
                sparse[Int(pc)] = Int32(count)
                dense[count] = pc
                count += 1
            }
        }

        func holds(_ assertion: Assertion, at index: Int, in subject: [UInt32]) -> Bool {
            let count = subject.count
            switch assertion {
            case .startOfText:
                return index == 0
            case .endOfText:
                return index == count
            case .endOfTextOrFinalTerminator:
                if index == count { return true }
                if index == count - 1 { return Scalars.isLineTerminator(subject[index]) }
                return index == count - 2 && subject[index] == 0x0D && subject[index + 1] == 0x0A
            case .startOfLine:
                if index == 0 { return true }
                guard index < count, Scalars.isLineTerminator(subject[index - 1]) else { return false }
                return !(subject[index - 1] == 0x0D && subject[index] == 0x0A)
            case .endOfLine:
                if index == count { return true }
                guard Scalars.isLineTerminator(subject[index]) else { return false }
                return !(index > 0 && subject[index - 1] == 0x0D && subject[index] == 0x0A)
            case .wordBoundary, .notWordBoundary:
                let before = index > 0 && Scalars.isWord(subject[index - 1])
                let after = index < count && Scalars.isWord(subject[index])
                return (before != after) == (assertion == .wordBoundary)
            }
        }

        /// Adds `start` and everything reachable from it without consuming input.
        func addThread(_ list: inout ThreadList, _ start: Int32, at index: Int, in subject: [UInt32], stack: inout [Int32]) {
            stack.append(start)
            while let pc = stack.popLast() {
                if list.contains(pc) { continue }
                list.insert(pc)
                switch instructions[Int(pc)] {
                case .jump(let target):
                    stack.append(target)
                case .split(let first, let second):
                    stack.append(second)
                    stack.append(first)
                case .assertion(let assertion):
                    if holds(assertion, at: index, in: subject) { stack.append(pc + 1) }
                default:
                    break
                }
            }
        }

        /// The VM's working memory: two thread lists sized to the program and a stack.
        struct Scratch: Sendable {
            var current: ThreadList
            var next: ThreadList
            var stack: [Int32] = []
        }

        func makeScratch() -> Scratch {
            Scratch(current: ThreadList(capacity: instructions.count), next: ThreadList(capacity: instructions.count))
        }

        func run(_ subject: [UInt32], scratch: inout Scratch) -> Bool {
            let folded = usesFolding ? subject.map(Scalars.fold) : subject
            scratch.current.count = 0
            scratch.next.count = 0
            scratch.stack.removeAll(keepingCapacity: true)
            return run(subject, folded: folded, current: &scratch.current, next: &scratch.next, stack: &scratch.stack)
        }

        private func run(_ subject: [UInt32], folded: [UInt32], current: inout ThreadList, next: inout ThreadList,
                         stack: inout [Int32]) -> Bool {
            addThread(&current, 0, at: 0, in: subject, stack: &stack)
            for index in subject.indices {
                if current.count == 0 { return false }
                let scalar = subject[index]
                let foldedScalar = folded[index]
                next.count = 0
                for slot in 0..<current.count {
                    let pc = current.dense[slot]
                    let advances: Bool
                    switch instructions[Int(pc)] {
                    case .scalar(let v): advances = scalar == v
                    case .foldedScalar(let v): advances = foldedScalar == v
                    case .any: advances = !Scalars.isLineTerminator(scalar)
                    case .anyIncludingNewline: advances = true
                    case .set(let classIndex, let caseInsensitive):
                        advances = classes[Int(classIndex)].matches(scalar, caseInsensitive: caseInsensitive)
                    case .split, .jump, .assertion, .match: advances = false
                    }
                    if advances {
                        addThread(&next, pc + 1, at: index + 1, in: subject, stack: &stack)
                    }
                }
                swap(&current, &next)
            }
            return current.contains(Int32(instructions.count - 1))
        }
    }
}
