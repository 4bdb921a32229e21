# cua-bench's env server in a Windows guest, run at every logon of `cua` by the scheduled task firstboot.ps1
# registered (so it runs on the user's desktop, which SendInput, capture and UI Automation need).
#
# The machine's settings come on its settings drive, made for each machine by the host, as a Linux guest's
# seed disk is: at its root `env` (KEY=VALUE lines, values quoted as a POSIX shell quotes them) and
# `config\keys\default.key` / `default.key_secret` (the machine's CURVE key pair, made on the host: the host
# never trusts a key the guest announces). The first drive holding both is taken; for a machine made by hand
# that can be the kit's own drive, with the same files put at its root.
#
# When the server exits it is started again after 5 s (the task's own restart covers this script failing).
$ErrorActionPreference = 'Stop'
$root = 'C:\cua'
$log = "$root\logs\server.log"
New-Item -ItemType Directory -Force -Path "$root\logs", "$root\config\keys" | Out-Null

function Find-Settings {
    foreach ($drive in Get-PSDrive -PSProvider FileSystem) {
        $at = $drive.Root.TrimEnd('\')  # 'D:\' -> 'D:'
        if ((Test-Path "$at\env") -and (Test-Path "$at\config\keys\default.key_secret")) { return $at }
    }
    return $null
}

function Read-Env([string]$path) {
    # shlex.quote's forms: a bare word, or '...' where an inner ' is written '"'"'.
    $settings = @{}
    foreach ($line in Get-Content -Path $path) {
        if ($line -notmatch '^([A-Za-z_][A-Za-z0-9_]*)=(.*)$') { continue }
        $value = $Matches[2]
        if ($value.Length -ge 2 -and $value.StartsWith("'") -and $value.EndsWith("'")) {
            $value = $value.Substring(1, $value.Length - 2).Replace("'`"'`"'", "'")
        }
        $settings[$Matches[1]] = $value
    }
    return $settings
}

$drive = $null
for ($try = 0; $try -lt 60 -and -not $drive; $try++) {  # a drive can take a moment to appear after logon
    $drive = Find-Settings
    if (-not $drive) { Start-Sleep -Seconds 2 }
}
if (-not $drive) {
    Add-Content -Path $log -Value "$(Get-Date -Format o) no drive holds env and config\keys\default.key_secret"
    exit 1
}
$settings = Read-Env "$drive\env"
# The Linux guest's folders in the same file mean nothing here: the keys live in C:\cua\config, and the
# server's folders are the user's profile and %TEMP%.
foreach ($linuxOnly in 'CUA_CONFIG_DIR', 'CUA_LOCAL_ROOT', 'CUA_LOCAL_PRIVATE_TMP') { $settings.Remove($linuxOnly) }
foreach ($key in $settings.Keys) { [Environment]::SetEnvironmentVariable($key, $settings[$key], 'Process') }
Copy-Item -Force -Path "$drive\config\keys\*" -Destination "$root\config\keys"
# The secret key readable by this user, SYSTEM and Administrators only.
icacls.exe "$root\config" /inheritance:r /grant:r "${env:USERNAME}:(OI)(CI)F" 'SYSTEM:(OI)(CI)F' 'Administrators:(OI)(CI)F' | Out-Null
$env:CUA_CONFIG_DIR = "$root\config"
$env:CUA_WINDOWS_ROOT = $root
# The built-in `local` backend (an X11 desktop) imports Linux-only modules; a disabled built-in is never imported.
$env:CUA_BENCH_DISABLE_PLUGINS = 'cua_bench.backends.local'

$port = if ($settings['CUA_GUEST_PORT']) { $settings['CUA_GUEST_PORT'] } else { '5555' }
# CUA_GUEST_ALLOW: the client keys the server answers, space-separated.
$allows = @($settings['CUA_GUEST_ALLOW'] -split ' ' | Where-Object { $_ } | ForEach-Object { "--allow=$_" })
$arguments = @(
    '-m', 'cua_bench.server', '--backend', 'libvirt-windows', '--address', "tcp://0.0.0.0:$port", '--curve'
) + $allows + @('--width', $settings['CUA_GUEST_WIDTH'], '--height', $settings['CUA_GUEST_HEIGHT'])
# Windows PowerShell turns each line a native program writes to a redirected stderr into an error record, which
# 'Stop' would make fatal: the server logs to stderr.
$ErrorActionPreference = 'Continue'
while ($true) {
    Add-Content -Path $log -Value "$(Get-Date -Format o) starting the env server on port $port"
    & "$root\python\python.exe" @arguments *>> $log
    Add-Content -Path $log -Value "$(Get-Date -Format o) the env server exited with $LASTEXITCODE; again in 5 s"
    Start-Sleep -Seconds 5
}
