// zod's `locales` namespace as the bundles need it: English only. zod re-exports all of its 64
// message locales (about 620 KB, half of the standalone server) through `z.locales`, which
// nothing here uses; its messages come from the English locale, which zod imports directly.
export {default as en} from 'zod/v4/locales/en.js'
