import {expect} from 'chai'

import {BadInputError} from '../../../../src/errors.js'
import {
  SEARCH_MAX_GLOBS,
  SEARCH_MAX_GLOB_CHARS,
  compileGlobs,
  createFolderFilter,
  createGlobFilter,
  globSyntaxError,
} from '../../../../src/exec/search/glob-filter.js'

describe('createGlobFilter', () => {
  it('passes every file without patterns', () => {
    expect(createGlobFilter([])('any/file.bin')).to.equal(true)
  })

  it('matches a pattern without a slash against the file name at any depth', () => {
    const isIncluded = createGlobFilter(['*.ts'])
    expect(isIncluded('a.ts')).to.equal(true)
    expect(isIncluded('src/deep/b.ts')).to.equal(true)
    expect(isIncluded('src/.hidden.ts')).to.equal(true)
    expect(isIncluded('src/b.js')).to.equal(false)
  })

  it('matches a pattern with a slash against the workspace-relative path', () => {
    const isIncluded = createGlobFilter(['src/**'])
    expect(isIncluded('src/a/b.js')).to.equal(true)
    expect(isIncluded('test/src/b.js')).to.equal(false)
    expect(createGlobFilter(['./src/*.ts'])('src/a.ts')).to.equal(true)
  })

  it('matches a shown backslash (written \\\\ in a path) by the same two characters in a glob', () => {
    expect(createGlobFilter(['back\\\\slash'])('back\\\\slash')).to.equal(true)
    expect(createGlobFilter(['src/back\\\\*'])('src/back\\\\slash.ts')).to.equal(true)
    expect(createGlobFilter(['*\\\\*'])('tab\\there'), 'a shown tab is not a shown backslash').to.equal(false)
    expect(createGlobFilter(['tab\\t*'])('tab\\there')).to.equal(true)
  })

  it('meets a name in its shown form, where an escape is two characters (docs/tools.md)', () => {
    expect(createGlobFilter(['tab\\there'])('tab\\there')).to.equal(true)
    expect(createGlobFilter(['tab*here'])('tab\\there')).to.equal(true)
    expect(createGlobFilter(['tab?here'])('tab\\there')).to.equal(false)
    expect(createGlobFilter(['tab??here'])('tab\\there')).to.equal(true)
  })

  it('anchors a pattern that starts with / or ./ at the workspace root, as .gitignore and ripgrep do', () => {
    for (const anchored of ['/Makefile', './Makefile']) {
      const isIncluded = createGlobFilter([anchored])
      expect(isIncluded('Makefile'), anchored).to.equal(true)
      expect(isIncluded('sub/Makefile'), anchored).to.equal(false)
    }
    expect(createGlobFilter(['/logs/*.log'])('logs/a.log')).to.equal(true)
    expect(createGlobFilter(['/logs/*.log'])('x/logs/a.log')).to.equal(false)
    expect(createGlobFilter(['*.log', '!/top.log'])('top.log')).to.equal(false)
    expect(createGlobFilter(['*.log', '!/top.log'])('deep/top.log')).to.equal(true)
    const mayContain = createFolderFilter(['/logs/**']) as (folder: string) => boolean
    expect(mayContain('logs')).to.equal(true)
    expect(mayContain('other')).to.equal(false)
  })

  it('passes a file matching any include and no exclude', () => {
    const isIncluded = createGlobFilter(['*.{ts,js}', '!*.min.js', '!vendor/**'])
    expect(isIncluded('a.ts')).to.equal(true)
    expect(isIncluded('a.js')).to.equal(true)
    expect(isIncluded('a.min.js')).to.equal(false)
    expect(isIncluded('vendor/x.js')).to.equal(false)
    expect(isIncluded('a.md')).to.equal(false)
    expect(createGlobFilter(['!*.md'])('a.txt')).to.equal(true)
  })

  it('refuses an empty pattern, naming it and showing a usable one', () => {
    expect(() => createGlobFilter(['  '])).to.throw(BadInputError, 'Glob pattern "  " is empty. Use e.g. "*.ts" or "src/**".')
    expect(() => createGlobFilter(['!'])).to.throw(BadInputError, 'Glob pattern "!" is empty.')
    expect(() => createGlobFilter(['*.ts', './'])).to.throw(BadInputError, 'Glob pattern "./" is empty.')
  })

  it('accepts SEARCH_MAX_GLOBS patterns and refuses one more, saying how many it got', () => {
    const patterns = Array.from({length: SEARCH_MAX_GLOBS}, (_, index) => `*.x${index}`)
    expect(createGlobFilter(patterns)('a.x31')).to.equal(true)
    expect(() => createGlobFilter([...patterns, '*.ts'])).to.throw(
      BadInputError,
      `Too many glob patterns (${SEARCH_MAX_GLOBS + 1}); pass at most ${SEARCH_MAX_GLOBS}.`,
    )
  })

  it('accepts a pattern of SEARCH_MAX_GLOB_CHARS characters and refuses a longer one, saying how long it is', () => {
    const longest = `${'a'.repeat(SEARCH_MAX_GLOB_CHARS - 3)}.ts`
    expect(createGlobFilter([longest])(`src/${longest}`)).to.equal(true)
    expect(() => createGlobFilter([`!${longest}`])).to.throw(
      BadInputError,
      `A glob pattern has ${SEARCH_MAX_GLOB_CHARS + 1} characters; a pattern may have at most ${SEARCH_MAX_GLOB_CHARS}. ` +
        'Use a shorter glob, such as "*.ts" or "src/**".',
    )
  })

    it('excludes with a pattern starting with ! and nothing else, whatever the other patterns', () => {
    const isIncluded = createGlobFilter(['!vendor/**'])
    expect(isIncluded('src/a.ts')).to.equal(true)
    expect(isIncluded('vendor/a.ts')).to.equal(false)
    expect(isIncluded('vendor/deep/a.ts')).to.equal(false)
    const onlyNames = createGlobFilter(['!*.md', '!LICENSE'])
    expect(onlyNames('docs/a.md')).to.equal(false)
    expect(onlyNames('LICENSE')).to.equal(false)
    expect(onlyNames('src/LICENSE.ts')).to.equal(true)
  })

  it('matches a name pattern against the name after the last slash only', () => {
    const isIncluded = createGlobFilter(['Makefile'])
    expect(isIncluded('Makefile')).to.equal(true)
    expect(isIncluded('sub/Makefile')).to.equal(true)
    expect(isIncluded('Makefile/x')).to.equal(false)
    expect(isIncluded('sub/Makefile.am')).to.equal(false)
  })

  it('matches a mix of path and name patterns by either', () => {
    const isIncluded = createGlobFilter(['src/*.ts', 'Makefile', './docs/**'])
    expect(isIncluded('src/a.ts')).to.equal(true)
    expect(isIncluded('lib/Makefile')).to.equal(true)
    expect(isIncluded('docs/a/b.md')).to.equal(true)
    expect(isIncluded('lib/a.ts')).to.equal(false)
    expect(isIncluded('src/deep/a.ts')).to.equal(false)
  })

  it('matches a pattern with a slash anywhere, even inside braces, against the whole path', () => {
    const isIncluded = createGlobFilter(['{src/*.ts,*.md}'])
    expect(isIncluded('src/a.ts')).to.equal(true)
    expect(isIncluded('README.md')).to.equal(true)
    expect(isIncluded('docs/a.md')).to.equal(false)
  })

  it('drops only a leading ./ from a pattern, keeping one after a folder whose name ends in a dot', () => {
    const isIncluded = createGlobFilter(['v2./*.ts'])
    expect(isIncluded('v2./a.ts')).to.equal(true)
    expect(isIncluded('v2a.ts')).to.equal(false)
    const mayContain = createFolderFilter(['v2./*.ts']) as (folder: string) => boolean
    expect(mayContain('v2.')).to.equal(true)
    expect(mayContain('src')).to.equal(false)
  })

  it('matches dotfiles and dot folders like any other name', () => {
    expect(createGlobFilter(['src/**'])('src/.config/a.json')).to.equal(true)
    expect(createGlobFilter(['*'])('.env')).to.equal(true)
    expect(createGlobFilter(['!*'])('.env')).to.equal(false)
  })
})

describe('globSyntaxError and malformed globs', () => {
  const malformed: Array<[string, RegExp]> = [
    ['[', /"\[" at character 1 starts a character class that has no closing "\]"/],
    ['src/[a-', /"\[" at character 5 .* no closing "\]"/],
    ['*.{ts', /"\{" at character 3 .* no closing "\}"/],
    ['*.(ts', /"\(" at character 3 .* no closing "\)"/],
    ['x\\', /escapes nothing/],
  ]
  for (const [pattern, reason] of malformed) {
    it(`refuses ${JSON.stringify(pattern)}, naming the glob and what is wrong`, () => {
      expect(globSyntaxError(pattern)).to.match(reason)
      expect(() => createGlobFilter([pattern])).to.throw(BadInputError, `Glob pattern ${JSON.stringify(pattern)} is malformed: `)
      expect(() => createGlobFilter([`!${pattern}`])).to.throw(BadInputError, 'is malformed')
    })
  }

  it('accepts well-formed classes, groups and escapes', () => {
    for (const pattern of ['[]]', '[!a]*', '\\[x', '+(a|b)', '[[:alpha:]]*', '{a,{b,c}}', '[a-z]*.{js,ts}', 'a}b', 'a)b']) {
      expect(globSyntaxError(pattern), pattern).to.equal(undefined)
    }
    expect(createGlobFilter(['\\[x'])('[x')).to.equal(true)
  })
})

describe('globSyntaxError, word for word and at the edges of a class', () => {
  it('says what is unclosed, where, and how to match the character itself', () => {
    expect(globSyntaxError('ab[cd')).to.equal('the "[" at character 3 starts a character class that has no closing "]" (write "\\[" to match a "[" itself)')
    expect(globSyntaxError('x{a,b')).to.equal(
      'the "{" at character 2 starts a group of alternatives ({a,b}) that has no closing "}" (write "\\{" to match a "{" itself)',
    )
    expect(globSyntaxError('x(a|b')).to.equal('the "(" at character 2 starts a group that has no closing ")" (write "\\(" to match a "(" itself)')
    expect(globSyntaxError('a\\')).to.equal('it ends with a "\\" that escapes nothing (write "\\\\" to match a backslash)')
  })

  it('closes a group only with its own closing character', () => {
    expect(globSyntaxError('{a)')).to.match(/^the "\{" at character 1 /)
    expect(globSyntaxError('(a}')).to.match(/^the "\(" at character 1 /)
    expect(globSyntaxError('{a,(b)}')).to.equal(undefined)
  })

  it('reads a "]" right after "[", "[!" or "[^" as a member, an escaped "]" as a member, and "[:…:]" as a named class', () => {
    for (const pattern of ['[]', '[!]', '[^]', '[\\]', '[a\\]', '[[:alpha:]', '[[:alpha:]x']) {
      expect(globSyntaxError(pattern), pattern).to.match(/character class that has no closing/)
    }
    for (const pattern of ['[]]', '[!]]', '[^]]', '[\\]]', '[a\\]b]', '[[:alpha:]]', '[[:]', '[a[:b]']) {
      expect(globSyntaxError(pattern), pattern).to.equal(undefined)
    }
  })

  it('takes only "[:" inside a class for the start of a named class, whatever ":]" comes later', () => {
    for (const pattern of ['[a:]b:]', '[[a]b:]', '[:a]b:]']) {
      expect(globSyntaxError(pattern), pattern).to.equal(undefined)
    }
  })
})

describe('compileGlobs (the globs as the search workers match them)', () => {
  it('gives one regex per kind of pattern there is, none for no pattern', () => {
    expect(compileGlobs([])).to.equal(undefined)
    expect(Object.keys(compileGlobs(['*.ts']) ?? {})).to.deep.equal(['includeName'])
    expect(Object.keys(compileGlobs(['!src/**']) ?? {})).to.deep.equal(['excludePath'])
    const spec = compileGlobs(['*.ts', 'src/**', '!vendor/**', '!*.min.js']) ?? {}
    expect(Object.keys(spec).sort()).to.deep.equal(['excludeName', 'excludePath', 'includeName', 'includePath'])
    const test = (source: string | undefined, text: string) => new RegExp(source as string).test(text)
    expect([test(spec.includeName, 'a.ts'), test(spec.includeName, 'src'), test(spec.includePath, 'src/x/y.md'), test(spec.includePath, 'a.ts')]).to.deep.equal([
      true,
      false,
      true,
      false,
    ])
    expect([test(spec.excludePath, 'vendor/a.ts'), test(spec.excludeName, 'x.min.js'), test(spec.excludeName, 'x.js')]).to.deep.equal([true, true, false])
  })

  it('matches the escapes of the display form as a shown path writes them', () => {
    const nameRegex = (pattern: string) => new RegExp(compileGlobs([pattern])?.includeName as string)
    expect(nameRegex('new\\nline').test('new\\nline')).to.equal(true)
    expect(nameRegex('new\\nline').test('newnline')).to.equal(false)
    expect(nameRegex('a\\x41').test('a\\x41')).to.equal(true)
    expect(nameRegex('caf\\u00e9').test('caf\\u00e9')).to.equal(true)
  })

  it('reads a backslash before x or u without all its hex digits as a glob escape of that letter', () => {
    const nameRegex = (pattern: string) => new RegExp(`^(?:${compileGlobs([pattern])?.includeName as string})$`)
    expect(nameRegex('a\\x4g').test('ax4g')).to.equal(true)
    expect(nameRegex('a\\x4g').test('a\\x4g')).to.equal(false)
    expect(nameRegex('a\\u12zz').test('au12zz')).to.equal(true)
    expect(nameRegex('a\\u12zz').test('a\\u12zz')).to.equal(false)
  })
})

describe('createFolderFilter', () => {
  it('walks only the folders that lead to or lie below the fixed folders of path patterns', () => {
    const mayContain = createFolderFilter(['src/lib/**/*.ts', './docs/', '!src/lib/vendor/**']) as (folder: string) => boolean
    expect(mayContain('src')).to.equal(true)
    expect(mayContain('src/lib')).to.equal(true)
    expect(mayContain('src/lib/deep')).to.equal(true)
    expect(mayContain('docs')).to.equal(true)
    expect(mayContain('src/other')).to.equal(false)
    expect(mayContain('srcx')).to.equal(false)
    expect(mayContain('test')).to.equal(false)
  })

  it('walks everything when the only patterns exclude, even an exclude naming a folder', () => {
    expect(createFolderFilter(['!vendor/**'])).to.equal(undefined)
    expect(createFolderFilter(['!vendor/**', '!*.md'])).to.equal(undefined)
  })

  it('leaves an excluded folder out of the folders an include leads to', () => {
    const mayContain = createFolderFilter(['src/**', '!vendor/**']) as (folder: string) => boolean
    expect(mayContain('src')).to.equal(true)
    expect(mayContain('vendor')).to.equal(false)
  })

  it('walks everything when a pattern has no slash, since it matches a name at any depth', () => {
    expect(createFolderFilter(['Makefile'])).to.equal(undefined)
    expect(createFolderFilter(['src/**', 'Makefile'])).to.equal(undefined)
    expect(createFolderFilter(['Makefile', 'src/**'])).to.equal(undefined)
  })

  it('walks a folder named by a path pattern without wildcards, and the folders leading to it', () => {
    const mayContain = createFolderFilter(['./docs/guide/intro.md']) as (folder: string) => boolean
    expect(mayContain('docs')).to.equal(true)
    expect(mayContain('docs/guide')).to.equal(true)
    expect(mayContain('docs/other')).to.equal(false)
    expect(mayContain('docsx')).to.equal(false)
  })

  it('walks everything when a pattern could match in any folder', () => {
    expect(createFolderFilter([])).to.equal(undefined)
    expect(createFolderFilter(['!*.md'])).to.equal(undefined)
    expect(createFolderFilter(['src/**', '*.ts'])).to.equal(undefined)
    expect(createFolderFilter(['**/x/*.ts'])).to.equal(undefined)
    expect(createFolderFilter(['{src,test}/**'])).to.equal(undefined)
    expect(createFolderFilter(['a\\*b/*.ts'])).to.equal(undefined)
  })
})
