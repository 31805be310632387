#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-ynl-spec.py SPEC HEADER: the YNL spec of the mem_notify family
and its uapi header agree: family name and version, multicast groups,
every enum (levels, OOM constraints), every attribute and command, by
name and value.  Prints TAP; exit status 1 on any difference."""
import re
import sys

import yaml


def c_name(prefix, name):
    return (prefix + name).upper().replace('-', '_')


def header_enums(text):
    """{enum name: [(entry, value)]} of the C header"""
    out = {}
    for m in re.finditer(r'enum\s+(\w+)\s*\{([^}]*)\}', text):
        val, entries = -1, []
        for line in m.group(2).split('\n'):
            line = re.sub(r'/\*.*?\*/', '', line).strip().rstrip(',')
            if not line:
                continue
            e = re.match(r'(\w+)\s*(?:=\s*(.+))?$', line)
            if not e:
                continue
            if e.group(2) is None:
                val += 1
            else:
                expr = e.group(2).strip()
                known = dict(entries)
                val = int(expr) if expr.isdigit() else eval(expr, {}, known)
            entries.append((e.group(1), val))
        out[m.group(1)] = entries
    return out


def main():
    spec = yaml.safe_load(open(sys.argv[1]))
    text = open(sys.argv[2]).read()
    enums = header_enums(text)
    defines = dict(re.findall(r'#define\s+(\w+)\s+(\S+)', text))
    results = []

    def check(ok, what):
        results.append((ok, what))

    fam = c_name('', spec['c-family-name'])
    ver = c_name('', spec['c-version-name'])
    check(defines.get(fam) == '"%s"' % spec['name'],
          'family name %s = "%s" (%s)' % (fam, spec['name'], defines.get(fam)))
    check(defines.get(ver) == str(spec['version']),
          'version %s = %s (%s)' % (ver, spec['version'], defines.get(ver)))

    groups = set(g['name'] for g in spec['mcast-groups']['list'])
    hgroups = set(v.strip('"') for k, v in defines.items()
                  if k.startswith('MEM_NOTIFY_MCGRP_'))
    check(groups == hgroups, 'multicast groups %s (header %s)'
          % (sorted(groups), sorted(hgroups)))

    for d in spec['definitions']:
        want = [(c_name(d['name-prefix'], e), i) for i, e in enumerate(d['entries'])]
        have = [e for e in
                enums.get(d.get('enum-name', 'mem_notify_' + d['name'].replace('-', '_')), [])]
        check(want == have, 'enum %s: %d entries agree' % (d['name'], len(want)))

    aset = spec['attribute-sets'][0]
    want, v = [], 0
    for a in aset['attributes']:
        v = a.get('value', v + 1)
        want.append((c_name(aset['name-prefix'], a['name']), v))
    have = [e for e in enums.get(aset['enum-name'], [])
            if not e[0].endswith('_UNSPEC') and not e[0].startswith('__')
            and not e[0].endswith('_MAX')]
    for (w, h) in zip(want, have):
        if w != h:
            check(False, 'attribute %s = %d, header says %s = %d' % (w + h))
    check(want == have, 'attributes: %d in the spec, %d in the header, same names '
          'and values' % (len(want), len(have)))
    cnt = c_name('', aset['attr-cnt-name'])
    check(dict(enums.get(aset['enum-name'], [])).get(cnt) == v + 1,
          '%s is one past the last attribute' % cnt)

    ops = spec['operations']
    want, v = [], 0
    for o in ops['list']:
        v = o.get('value', v + 1)
        want.append((c_name(ops['name-prefix'], o['name']), v))
    have = [e for e in enums.get(ops['enum-name'], [])
            if not e[0].endswith('_UNSPEC') and not e[0].startswith('__')
            and not e[0].endswith('_MAX')]
    check(want == have, 'commands: %d in the spec, %d in the header, same names '
          'and values' % (len(want), len(have)))
    for o in ops['list']:
        if 'mcgrp' in o:
            check(o['mcgrp'] in groups, 'command %s names group %s' % (o['name'], o['mcgrp']))

    for i, (ok, what) in enumerate(results, 1):
        print('%s %d - %s' % ('ok' if ok else 'not ok', i, what))
    print('1..%d' % len(results))
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == '__main__':
    sys.exit(main())
