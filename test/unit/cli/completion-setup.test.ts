import {expect} from 'chai'

import {completionSetupInstructions} from '../../../src/cli/completion-setup.js'

describe('completionSetupInstructions', () => {
  it('appends the set-up line only when the start-up file does not hold it yet, in every shell', () => {
    expect(completionSetupInstructions('ak', 'bash')).to.contain("grep -qs '# ak autocomplete setup' ~/.bashrc || ak autocomplete script bash >> ~/.bashrc")
    expect(completionSetupInstructions('ak', 'zsh')).to.contain("grep -qs '# ak autocomplete setup' ~/.zshrc || ak autocomplete script zsh >> ~/.zshrc")
    expect(completionSetupInstructions('ak', 'powershell')).to.contain(
      "if (-not (Select-String -Path $PROFILE -SimpleMatch -Quiet -Pattern 'ak.ps1' -ErrorAction SilentlyContinue)) { " +
        'Add-Content -Path $PROFILE -Value (Invoke-Expression -Command "ak autocomplete script powershell") }',
    )
  })
})
