# cua-bench's first-boot script for a Windows guest: run once, at the first logon of `cua`, by the answer
# file's FirstLogonCommands, from the kit's drive (an ISO: read-only). It makes the machine an image that
# runs our env server on its desktop at every logon:
#   1. Python 3.11 from the installer on the kit (silent, all users, on PATH) into C:\cua\python;
#   2. the env server's wheels from the kit's wheels\ (pip --no-index: nothing is downloaded), and our
#      packages from lib\ into C:\cua\lib, put on Python's path by a .pth file;
#   3. start-server.ps1 into C:\cua, run at every logon of `cua` by a scheduled task (see below);
#   4. what a desktop that is driven, not used, needs: auto-logon for good, no sleep, no screen saver or
#      lock, the server's port open in the firewall.
# Everything it does is logged to C:\cua\logs\firstboot.log. The machine's own settings (the CURVE keys, the
# size, the client key) are not read here: start-server.ps1 reads them at each logon, from the machine's
# settings drive, so one installed image serves any number of machines.
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
$kit = $PSScriptRoot
$root = 'C:\cua'
New-Item -ItemType Directory -Force -Path "$root\logs", "$root\config\keys" | Out-Null
Start-Transcript -Path "$root\logs\firstboot.log" -Append | Out-Null
try {
    # 1. Python.
    $installer = Get-ChildItem -Path $kit -Filter 'python-3.11.*-amd64.exe' | Select-Object -First 1
    if (-not $installer) { throw "the kit at $kit holds no python-3.11.*-amd64.exe (windows_kit(python_installer=...))" }
    $python = "$root\python\python.exe"
    if (-not (Test-Path $python)) {
        $arguments = "/quiet InstallAllUsers=1 PrependPath=1 Include_test=0 Include_launcher=0 TargetDir=`"$root\python`""
        $setup = Start-Process -FilePath $installer.FullName -ArgumentList $arguments -Wait -PassThru
        if ($setup.ExitCode -ne 0) { throw "the Python installer exited with $($setup.ExitCode)" }
    }
    # 2. The env server's dependencies (wheels for win_amd64, pinned as on the host) and our packages.
    $wheels = (Get-ChildItem -Path "$kit\wheels" -Filter '*.whl').FullName
    & $python -m pip install --no-index --no-deps --disable-pip-version-check $wheels
    if ($LASTEXITCODE -ne 0) { throw "pip install of the kit's wheels exited with $LASTEXITCODE" }
    if (Test-Path "$root\lib") { Remove-Item -Recurse -Force "$root\lib" }
    Copy-Item -Recurse -Path "$kit\lib" -Destination "$root\lib"
    $site = (& $python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])").Trim()
    Set-Content -Path "$site\cua.pth" -Value "$root\lib" -Encoding ASCII
    # comtypes writes its UI Automation wrapper on first use: made now, while we are sure to be elevated.
    & $python -c "import comtypes.client; comtypes.client.GetModule('UIAutomationCore.dll')"
    if ($LASTEXITCODE -ne 0) { throw "comtypes could not generate the UI Automation wrapper" }
    Copy-Item -Force -Path "$kit\start-server.ps1" -Destination "$root\start-server.ps1"

    # 3. The env server at every logon of the auto-logged-on user: a scheduled task, NOT a Windows service.
    # A service runs in session 0, which since Vista is isolated from the user's desktop: there SendInput
    # reaches no window, screen capture returns a black (or no) image and UI Automation sees none of the
    # user's apps. The server must run inside the interactive session, as the user, which is what a task
    # triggered at that user's logon with an Interactive logon type does. RunLevel Highest gives it the
    # user's elevated token (the `cua` account is an administrator), so it can drive elevated windows too
    # (UIPI blocks input from a lower integrity level into a higher one).
    $user = "$env:COMPUTERNAME\cua"
    $action = New-ScheduledTaskAction -Execute 'powershell.exe' `
        -Argument "-NoProfile -ExecutionPolicy Bypass -WindowStyle Hidden -File `"$root\start-server.ps1`""
    $trigger = New-ScheduledTaskTrigger -AtLogOn -User $user
    $principal = New-ScheduledTaskPrincipal -UserId $user -LogonType Interactive -RunLevel Highest
    # Restarted when it fails (start-server.ps1 itself restarts the server when the server exits); never
    # stopped for running long, and never a second copy.
    $settings = New-ScheduledTaskSettingsSet -RestartCount 999 -RestartInterval (New-TimeSpan -Minutes 1) `
        -ExecutionTimeLimit ([TimeSpan]::Zero) -MultipleInstances IgnoreNew -AllowStartIfOnBatteries `
        -DontStopIfGoingOnBatteries -StartWhenAvailable
    Register-ScheduledTask -TaskName 'cua-env-server' -Action $action -Trigger $trigger -Principal $principal `
        -Settings $settings -Force | Out-Null

    # 4. A desktop that stays up. The answer file's AutoLogon counts logons down; here it is made permanent
    # (Winlogon's documented values; the password is the answer file's, in plain text: a test machine's).
    [xml]$answers = Get-Content -Path "$kit\autounattend.xml"
    $password = ($answers.unattend.settings | Where-Object pass -eq 'oobeSystem').component |
        Where-Object name -eq 'Microsoft-Windows-Shell-Setup' | ForEach-Object { $_.AutoLogon.Password.Value }
    $winlogon = 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Winlogon'
    Set-ItemProperty -Path $winlogon -Name AutoAdminLogon -Value '1'
    Set-ItemProperty -Path $winlogon -Name DefaultUserName -Value 'cua'
    Set-ItemProperty -Path $winlogon -Name DefaultDomainName -Value $env:COMPUTERNAME
    Set-ItemProperty -Path $winlogon -Name DefaultPassword -Value $password
    Remove-ItemProperty -Path $winlogon -Name AutoLogonCount -ErrorAction SilentlyContinue
    Set-LocalUser -Name 'cua' -PasswordNeverExpires $true
    powercfg.exe /change monitor-timeout-ac 0
    powercfg.exe /change standby-timeout-ac 0
    powercfg.exe /hibernate off
    Set-ItemProperty -Path 'HKCU:\Control Panel\Desktop' -Name ScreenSaveActive -Value '0'
    New-Item -Force -Path 'HKLM:\SOFTWARE\Policies\Microsoft\Windows\Personalization' | Out-Null
    Set-ItemProperty -Path 'HKLM:\SOFTWARE\Policies\Microsoft\Windows\Personalization' -Name NoLockScreen -Value 1 -Type DWord
    Get-ScheduledTask -TaskName 'ServerManager' -ErrorAction SilentlyContinue | Disable-ScheduledTask | Out-Null
    # QEMU's user network forwards the host's port to this one; Windows' firewall blocks inbound by default.
    New-NetFirewallRule -DisplayName 'cua-bench env server' -Direction Inbound -Protocol TCP -LocalPort 5555 `
        -Action Allow -Profile Any | Out-Null

    Start-ScheduledTask -TaskName 'cua-env-server'  # this logon's: the trigger fires at the next one
    Write-Output 'cua firstboot: done'
} catch {
    Write-Output "cua firstboot: FAILED: $_"
    Stop-Transcript | Out-Null
    exit 1
}
Stop-Transcript | Out-Null
