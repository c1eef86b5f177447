"""Checks an HTML file is well-formed: every element closed in order (void
elements and self-closed SVG shapes excepted), nothing after </html>, no
script, no external reference, every id unique and every #link pointing at one. Usage: check_html.py FILE"""
import html.parser
import sys

VOID = {"meta", "link", "br", "hr", "img", "input", "wbr", "col", "source"}


class Checker(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.closed = [], [], False
        self.ids, self.links = set(), set()

    def handle_starttag(self, tag, attrs):
        if self.closed:
            self.errors.append(f"<{tag}> after </html>")
        if tag == "script":
            self.errors.append(f"<script> at line {self.getpos()[0]}")
        for name, value in attrs:
            if name == "id":
                if value in self.ids:
                    self.errors.append(f"duplicate id {value!r} at line {self.getpos()[0]}")
                self.ids.add(value)
            if name == "href" and value and value.startswith("#"):
                self.links.add(value[1:])
            if name == "aria-labelledby":
                self.links.update(value.split())
            if name in ("src", "href") and value and not value.startswith(("#", "data:")):
                self.errors.append(f"external reference {name}={value!r}")
            if name.startswith("on"):
                self.errors.append(f"event handler {name}")
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))

    def handle_endtag(self, tag):
        if not self.stack:
            self.errors.append(f"</{tag}> with nothing open at line {self.getpos()[0]}")
            return
        top, line = self.stack.pop()
        if top != tag:
            self.errors.append(f"</{tag}> at line {self.getpos()[0]} closes <{top}> from line {line}")
        if tag == "html":
            self.closed = True


c = Checker()
c.feed(open(sys.argv[1], encoding="utf-8").read())
c.close()
for missing in sorted(c.links - c.ids):
    c.errors.append(f"link or label to a missing id {missing!r}")
if c.stack:
    c.errors.append("unclosed: " + ", ".join(f"<{t}> line {l}" for t, l in c.stack))
for e in c.errors[:20]:
    print("FAIL:", e)
sys.exit(1 if c.errors else 0)
