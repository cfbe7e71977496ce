"""Every import statement of a Python file, read with ast (anywhere in the module, functions too)."""
import ast


def imports(path):
    """(absolute module name, line, the function it is in or None) of every import in a module file."""
    package = path.parent.name
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []

    def visit(node, func):
        for child in ast.iter_child_nodes(node):
            f = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
            if isinstance(child, ast.Import):
                out.extend((a.name, child.lineno, func) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = package + ("." + base if base else "")
                out.append((base, child.lineno, func))
                out.extend((f"{base}.{a.name}", child.lineno, func) for a in child.names)
            visit(child, f)
    visit(tree, None)
    return out
