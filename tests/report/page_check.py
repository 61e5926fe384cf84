# SPDX-License-Identifier: GPL-3.0-or-later
"""page_check.py PAGE: what tests/report/lib.sh checks on a report page's
HTML beyond what Chromium measures.

  - the page tells its story before its tables: a narrative paragraph
    (<p class="story">) holding at least one figure of the run comes
    before the first <table>;
  - no text of the page (outside the inline plots, the script and the
    style) says nan or inf: a value that does not exist is said in words;
  - every number in a table (<td class="num">) has a unit in a heading:
    its row heading (the <th> of its row, named with the group heading
    above it) or its column heading (the lowest <th> over its column that
    is not a group heading) reads "name (unit)", or is a count, a ratio,
    a probability or a name by the list UNITLESS below (a bare matrix,
    with no heading over its cells, is named by its section and skipped).

Prints each failure on its own line and exits 1; exits 0 when all hold."""
import re
import sys
from html.parser import HTMLParser

# Headings of numbers that have no unit: counts, ratios, probabilities,
# indices, criteria and coefficients defined without one. Matched against
# the whole heading, case-insensitive.
UNITLESS = [
    # counts
    r".*\b(replications|reps|points|samples|rows|packets|records|flows|sessions|customers|"
    r"servers|users|events|states|pairs|transitions|rounds|iterations|intervals|chunks|"
    r"classes|gains|values|candidates|parameters|windows|groups|periods|segments|"
    r"realisations|completions|skipped|admitted|rejected|undecided|levels|grid|"
    r"closer|fitted|copula|real|batches|servers on|servers busy|servers in setup|poles)\b.*",
    r"n", r"N", r"na", r"nb", r"n_a", r"n_b", r"(input )?delay( \(samples\))?", r"seed",
    r"chosen", r"version", r"server port", r"threshold n", r"boundary from",
    # ratios, probabilities, fractions, correlations and criteria
    r".*\b(count|fraction|ratio|share|probability|correlation|utili[sz]ation|load|"
    r"weight|index|level|rank|order|margin|factor|blocking|mass|tol|uniformization|"
    r"priority|excursion|shed|floor|band|gain|hurst|kendall|spearman|ks|"
    r"Kolmogorov-Smirnov|KS distance|Anderson-Darling|AIC|BIC|R²|log-likelihood|"
    r"t statistic|p value|degrees of freedom|relative change|confidence|p0|"
    r"K_I|K_P|K I|K P|pole|real part|imaginary part|modulus|damping|acf|lag1|size gap|"
    r"residual variance|residual sum of squares|standard error|statistic)\b.*",
    # the parameters of a fitted family, in the family's own (log) scale
    r"(mu|sigma|w|rate|shape|scale|xm|alpha)[0-9]*|[σξαμλ]|u|p u|a|b",
    # an operating point, in the units of the logged columns
    r"u|y|input|output",
    # a policy's own parameter, in the unit its row names (N jobs, a timer)
    r"parameter", r"ε",
]
# a name may follow its group's ("operating point u")
UNITLESS_RE = [re.compile("^(?:.* )?(?:" + u + ")$", re.I) for u in UNITLESS]
UNIT_RE = re.compile(r"\([^()]+\)\s*$")


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skip = 0          # depth inside svg/script/style
        self.text = []         # visible text outside skipped parts
        self.tables = []       # each a list of rows; a row a list of cells
        self.cell = None
        self.first_table = None
        self.first_story = None
        self.story_has_figure = False
        self.in_story = False
        self.pos = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.pos += 1
        if tag in ("svg", "script", "style"):
            self.skip += 1
        if self.skip:
            return
        if tag == "table":
            self.tables.append([])
            if self.first_table is None:
                self.first_table = self.pos
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("th", "td") and self.tables and self.tables[-1]:
            self.cell = {"tag": tag, "cls": a.get("class") or "", "text": "",
                         "colspan": int(a.get("colspan") or 1),
                         "rowspan": int(a.get("rowspan") or 1)}
            self.tables[-1][-1].append(self.cell)
        elif tag == "p" and "story" in (a.get("class") or "").split():
            self.in_story = True
            if self.first_story is None:
                self.first_story = self.pos

    def handle_endtag(self, tag):
        if tag in ("svg", "script", "style"):
            self.skip = max(0, self.skip - 1)
        if tag in ("th", "td"):
            self.cell = None
        if tag == "p":
            self.in_story = False

    def handle_data(self, data):
        if self.skip:
            return
        self.text.append(data)
        if self.cell is not None:
            self.cell["text"] += data
        if self.in_story and re.search(r"\d", data):
            self.story_has_figure = True


def described(h):
    """A heading that gives its numbers a unit, or declares them unitless."""
    return bool(h) and (UNIT_RE.search(h) or any(u.match(h) for u in UNITLESS_RE))


def unlabelled(table):
    """The headings of TABLE's numeric cells that hold numbers without a
    unit: a cell is labelled when its row heading or its column heading
    is described."""
    grid = {}  # (row, col) -> cell
    for r, row in enumerate(table):
        c = 0
        for cell in row:
            while (r, c) in grid:
                c += 1
            cell["col"] = c
            for dr in range(cell["rowspan"]):
                for dc in range(cell["colspan"]):
                    grid[(r + dr, c + dc)] = cell
            c += cell["colspan"]
    group, out = "", []
    for r, row in enumerate(table):
        if len(row) == 1 and "group" in row[0]["cls"].split():
            group = " ".join(row[0]["text"].split())  # a heading row over the rows below
            continue
        if not any(x["tag"] == "td" for x in row):
            continue
        heads = [x for x in row if x["tag"] == "th" and "group" not in x["cls"].split()]
        rh = " ".join(heads[0]["text"].split()) if heads else ""
        if heads and "sub" in heads[0]["cls"].split() and group:
            rh = group + " " + rh
        for cell in row:
            if cell["tag"] != "td" or "num" not in cell["cls"].split():
                continue
            ch = ""
            for rr in range(r - 1, -1, -1):
                above = grid.get((rr, cell["col"]))
                if above and above["tag"] == "th" and "group" not in above["cls"].split():
                    ch = " ".join(above["text"].split())
                    break
            # a bare matrix (no heading at all) is named by its section
            if (rh or ch) and not described(rh) and not described(ch):
                out.append(ch or rh)
    return out


def main():
    page = Page()
    with open(sys.argv[1], encoding="utf-8") as f:
        page.feed(f.read())
    bad = []
    if page.first_story is None:
        bad.append("no narrative paragraph (<p class=\"story\">)")
    elif page.first_table is not None and page.first_story > page.first_table:
        bad.append("the first table comes before the narrative")
    elif not page.story_has_figure:
        bad.append("the narrative holds no figure of the run")
    text = " ".join(page.text)
    m = re.search(r".{0,40}\b(nan|inf)\b.{0,20}", text, re.I)
    if m:
        bad.append("the page prints a non-number: '%s'" % m.group(0))
    seen = set()
    for t in page.tables:
        for h in unlabelled(t):
            if h not in seen:
                seen.add(h)
                bad.append("numbers under a heading without a unit: '%s'" % h)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
