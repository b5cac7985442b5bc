import {expect} from 'chai'
import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {readCodexConfig} from '../../../src/codex/codex-config.js'
import {checkAgents, checkPluginRoot} from '../../../src/doctor/agents-check.js'
import {checkCodexConfig, checkCodexHome} from '../../../src/doctor/codex-home-check.js'
import {checkRegistration} from '../../../src/doctor/registration-check.js'
import {checkProjectTrust} from '../../../src/doctor/trust-check.js'
import {RUN_JS} from '../../helpers/clients.js'
import {type DoctorFixture, createDoctorFixture} from '../../helpers/doctor-fixture.js'

describe('doctor: Codex checks', () => {
  let fixture: DoctorFixture
  let codexHome: string

  beforeEach(async () => {
    fixture = await createDoctorFixture()
    codexHome = path.join(fixture.home, '.codex')
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  async function writeConfig(text: string) {
    await mkdir(codexHome, {recursive: true})
    await writeFile(path.join(codexHome, 'config.toml'), text)
    return readCodexConfig(codexHome)
  }

  /** What register writes so that Codex waits for the runtime and fails loudly. */
  const STARTS = 'required = true\nstartup_timeout_sec = 120\n'
  const registration = (extra: string) =>
    `[mcp_servers.agents]\ncommand = ${JSON.stringify(process.execPath)}\n` +
    `args = [${JSON.stringify(RUN_JS)}, "codex-agent-runtime", "serve"]\n${extra}`

  describe('codex home and config', () => {
    it('warns when the Codex home does not exist, with how to create or choose one', async () => {
      const result = await checkCodexHome(codexHome)
      expect(result).to.include({status: 'warn', detail: `${codexHome} does not exist`})
      expect(result.fix).to.contain('--codex-home')
    })

    it('suggests creating a missing Codex home given by flag with a command that creates it', async () => {
      const result = await checkCodexHome(codexHome, {given: true})
      expect(result.fix).to.match(new RegExp(`^mkdir -p ${codexHome}\\b`))
    })

    it('suggests no register command for config.toml when the Codex home does not exist', async () => {
      const result = checkCodexConfig(codexHome, await readCodexConfig(codexHome), 'ak codex-agent-runtime register', {homeExists: false})
      expect(result.status).to.equal('warn')
      expect(result.detail).to.contain(`the Codex home ${codexHome} does not exist`)
      expect(result.fix).to.equal(undefined)
    })

    it('fails a config.toml that does not parse, quoting the line', async () => {
      const result = checkCodexConfig(codexHome, await writeConfig('model = "o3"\n[projects\n'))
      expect(result.status).to.equal('fail')
      expect(result.detail).to.match(/does not parse: line 2/)
    })

    it('passes a config.toml that parses', async () => {
      expect(checkCodexConfig(codexHome, await writeConfig('model = "o3"\n')).status).to.equal('ok')
    })
  })

  describe('project trust', () => {
    beforeEach(async () => {
      await mkdir(path.join(fixture.project, '.codex', 'agents'), {recursive: true})
    })

    it('passes where there are no project agents, whatever the trust', async () => {
      const elsewhere = path.join(fixture.root, 'plain')
      await mkdir(elsewhere)
      const result = await checkProjectTrust(codexHome, await writeConfig(''), elsewhere, fixture.home)
      expect(result).to.include({status: 'ok'})
      expect(result.detail).to.contain('no project agents')
    })

    it('passes a trusted project', async () => {
      const config = await writeConfig(`[projects.${JSON.stringify(fixture.project)}]\ntrust_level = "trusted"\n`)
      expect(await checkProjectTrust(codexHome, config, fixture.project, fixture.home)).to.include({status: 'ok', detail: `${fixture.project} is trusted`})
    })

    it('passes a folder inside a trusted repository', async () => {
      await mkdir(path.join(fixture.project, '.git'))
      await mkdir(path.join(fixture.project, 'pkg'))
      const config = await writeConfig(`[projects.${JSON.stringify(fixture.project)}]\ntrust_level = "trusted"\n`)
      expect((await checkProjectTrust(codexHome, config, path.join(fixture.project, 'pkg'), fixture.home)).status).to.equal('ok')
    })

    it('warns about an untrusted project with how to trust it in Codex', async () => {
      const config = await writeConfig(`[projects.${JSON.stringify(fixture.project)}]\ntrust_level = "untrusted"\n`)
      const result = await checkProjectTrust(codexHome, config, fixture.project, fixture.home)
      expect(result.status).to.equal('warn')
      expect(result.detail).to.contain('marked untrusted')
      expect(result.fix).to.contain(`[projects."${fixture.project}"] trust_level = "trusted"`)
    })

    it('warns about a trust_level Codex does not accept, naming it and the accepted values', async () => {
      const config = await writeConfig(`[projects.${JSON.stringify(fixture.project)}]\ntrust_level = "Trusted"\n`)
      const result = await checkProjectTrust(codexHome, config, fixture.project, fixture.home)
      expect(result.status).to.equal('warn')
      expect(result.detail).not.to.contain('marked untrusted')
      expect(result.detail).to.contain('trust_level = "Trusted", which Codex does not accept (only "trusted" or "untrusted")')
      expect(result.fix).to.contain(`[projects."${fixture.project}"] trust_level = "trusted"`)
    })

    it('warns about a project the config does not mention', async () => {
      const result = await checkProjectTrust(codexHome, await writeConfig(''), fixture.project, fixture.home)
      expect(result.status).to.equal('warn')
      expect(result.detail).to.contain('not recorded as trusted')
    })
  })

  const environment = () => ({cwd: fixture.project, env: {PATH: fixture.path, HOME: fixture.home}, homeDir: fixture.home})

  describe('registration', () => {
    it('suggests no register command when the Codex home does not exist, since register needs it', async () => {
      const result = await checkRegistration(codexHome, await readCodexConfig(codexHome), environment())
      expect(result).to.include({status: 'warn', detail: `not registered: the Codex home ${codexHome} does not exist (see "codex home")`})
      expect(result.fix).to.equal(undefined)
    })

    it('passes a registration with tool_timeout_sec = 600 that starts and lists the agents', async () => {
      await mkdir(path.join(codexHome, 'agents'), {recursive: true})
      await writeFile(path.join(codexHome, 'agents', 'reviewer.toml'), 'description = "Reviews"\n')
      const result = await checkRegistration(codexHome, await writeConfig(registration(`tool_timeout_sec = 600\n${STARTS}default_tools_approval_mode = "approve"\n`)), environment())
      expect(result.status, result.detail).to.equal('ok')
      expect(result.detail).to.contain('[mcp_servers.agents]')
      expect(result.detail).to.match(/starts and lists 1 agent tool$/)
    })

    describe('whether codex exec would decline agent calls', () => {
      beforeEach(async () => {
        await mkdir(path.join(codexHome, 'agents'), {recursive: true})
        await writeFile(path.join(codexHome, 'agents', 'reviewer.toml'), 'description = "Reviews"\n')
      })

      it('warns about an entry without the approval mode, with register (which adds it) as the fix', async () => {
        const result = await checkRegistration(codexHome, await writeConfig(registration('tool_timeout_sec = 600\n')), environment())
        expect(result.status).to.equal('warn')
        expect(result.detail).to.equal(
          '[mcp_servers.agents] has no default_tools_approval_mode, so codex exec declines agent_reviewer (it cannot ask) and Codex asks before each call',
        )
        expect(result.fix).to.equal(
          `ak codex-agent-runtime register --name agents (it adds the key), or set default_tools_approval_mode = "approve" in [mcp_servers.agents] of ${path.join(codexHome, 'config.toml')}`,
        )
      })

      it("warns about the user's own mode, and says that keeping it means being asked", async () => {
        const config = await writeConfig(`approval_policy = "never"\n${registration('tool_timeout_sec = 600\ndefault_tools_approval_mode = "writes"\n')}`)
        const result = await checkRegistration(codexHome, config, environment())
        expect(result.detail).to.equal('[mcp_servers.agents] has default_tools_approval_mode = "writes", so Codex and codex exec decline agent_reviewer (approval_policy = "never")')
        expect(result.fix).to.match(/, or keep yours to be asked before each call$/)
      })

      it("passes when the agent tool's own approval_mode lets it run", async () => {
        const config = await writeConfig(registration(`tool_timeout_sec = 600\n${STARTS}[mcp_servers.agents.tools.agent_reviewer]\napproval_mode = "approve"\n`))
        expect((await checkRegistration(codexHome, config, environment())).status).to.equal('ok')
      })
    })

    it('warns about a registration Codex would run without, silently, with register (which adds the keys) as the fix', async () => {
      await mkdir(path.join(codexHome, 'agents'), {recursive: true})
      await writeFile(path.join(codexHome, 'agents', 'reviewer.toml'), 'description = "Reviews"\n')
      const result = await checkRegistration(codexHome, await writeConfig(registration('tool_timeout_sec = 600\ndefault_tools_approval_mode = "approve"\n')), environment())
      expect(result.status).to.equal('warn')
      expect(result.detail).to.match(/^\[mcp_servers\.agents\] has no required, .*; and no startup_timeout_sec/)
      expect(result.fix).to.match(/^ak codex-agent-runtime register --name agents \(it adds both keys, keeping your other values\), or set required = true and startup_timeout_sec = 120 in/)
      const declined = await checkRegistration(codexHome, await writeConfig(registration('tool_timeout_sec = 600\n')), environment())
      expect(declined.detail).to.match(/has no default_tools_approval_mode/)
      expect(declined.notes).to.have.length(1).and.to.match(/has no required/)
    })

    it('fails a registration that does not start, with the command to run to see why', async () => {
      const config = await writeConfig(registration('tool_timeout_sec = 600\n').replace('"serve"]', '"serve", "--max-dispatches", "0"]'))
      const result = await checkRegistration(codexHome, config, environment())
      expect(result.status).to.equal('fail')
      expect(result.detail).to.contain('does not start')
      expect(result.fix).to.match(/^run .*codex-agent-runtime serve --max-dispatches 0 to see the whole error$/)
    })

    it('warns about a missing registration with the command that adds it', async () => {
      const result = await checkRegistration(codexHome, await writeConfig('model = "o3"\n'), environment())
      expect(result).to.include({status: 'warn', fix: 'ak codex-agent-runtime register'})
    })

    it('warns about a registration with another tool timeout', async () => {
      const result = await checkRegistration(codexHome, await writeConfig(registration('')), environment())
      expect(result.status).to.equal('warn')
      expect(result.detail).to.contain('no tool_timeout_sec')
      expect(result.fix).to.equal('ak codex-agent-runtime register --name agents')
    })

    it('fails a registration whose entry file no longer exists', async () => {
      const config = await writeConfig(
        `[mcp_servers.agents]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ["/gone/bin/run.js", "codex-agent-runtime", "serve"]\ntool_timeout_sec = 600\n`,
      )
      const result = await checkRegistration(codexHome, config, environment())
      expect(result.status).to.equal('fail')
      expect(result.detail).to.contain('/gone/bin/run.js')
    })
  })

  describe('plugin root and agents', () => {
    it('accepts a missing plugin root as no staged kits', async () => {
      expect((await checkPluginRoot(path.join(fixture.root, 'plugins'))).status).to.equal('ok')
    })

    it('names the kits of a plugin root', async () => {
      const pluginRoot = path.join(fixture.root, 'plugins')
      await mkdir(path.join(pluginRoot, 'kit-b'), {recursive: true})
      await mkdir(path.join(pluginRoot, 'kit-a'))
      expect((await checkPluginRoot(pluginRoot)).detail).to.equal(`${pluginRoot} (2 kits: kit-a, kit-b)`)
    })

    it('names the agents discovered and where they come from', async () => {
      await mkdir(path.join(codexHome, 'agents'), {recursive: true})
      await writeFile(path.join(codexHome, 'agents', 'reviewer.toml'), 'description = "Reviews"\n')
      const result = await checkAgents({codexHome, pluginRoot: path.join(fixture.root, 'plugins')}, {cwd: fixture.project, homeDir: fixture.home})
      expect(result.status).to.equal('ok')
      expect(result.detail).to.match(/^1 agent: reviewer \(/)
    })

    it('warns when no agent is found', async () => {
      const result = await checkAgents({codexHome, pluginRoot: path.join(fixture.root, 'plugins')}, {cwd: fixture.project, homeDir: fixture.home})
      expect(result.status).to.equal('warn')
      expect(result.fix).to.contain(path.join(codexHome, 'agents'))
    })

    it('warns with discovery\'s note when an agent file does not parse', async () => {
      await mkdir(path.join(codexHome, 'agents'), {recursive: true})
      await writeFile(path.join(codexHome, 'agents', 'broken.toml'), 'description = \n')
      const result = await checkAgents({codexHome, pluginRoot: path.join(fixture.root, 'plugins')}, {cwd: fixture.project, homeDir: fixture.home})
      expect(result.status).to.equal('warn')
      expect(result.notes).to.have.length(1)
      expect(result.notes?.[0]).to.contain('broken.toml')
    })
  })
})
